"""Worker processes that never outlive the rocport run that started them."""

from __future__ import annotations

import os
import threading
import time


def exit_with_parent() -> None:
    """Process-pool initializer: end this worker once its parent is gone. A worker of a run
    killed with ``kill -9`` would otherwise wait forever on the pool's pipes (it holds both of
    their ends), keeping the run's output pipes and memory."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()
