"""``python -m rocport``."""

from rocport.cli.main import main

main()
