"""The study file and the study-type protocol: what a benchmark's study types are built from
(items, annotators, answers in one SQLite file; :class:`~refbench.studyfile.kinds.StudyKind`),
below the tasks so that a task's folder can hold its own study types."""
