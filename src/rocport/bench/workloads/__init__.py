"""The workloads of ``rocport bench``: each yields :class:`Result` and :class:`Skipped` records."""
