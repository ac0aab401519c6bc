"""The ``rocport`` command line: a thin layer over the library API."""
