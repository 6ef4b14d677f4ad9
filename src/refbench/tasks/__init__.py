"""Task packages: one per benchmark, each behind the :class:`refbench.tasks.base.Task`
interface (``tasks/<name>/task.py`` holds ``TASK``) and listed once in
:data:`refbench.core.registry.TASKS`. The modules at this level are what every task shares:
the interface (``base``), reading any file (``choices``), scoring (``scoring``, ``metrics``),
web index records and page data (``index_records``, ``page``), result text (``result_text``)."""
