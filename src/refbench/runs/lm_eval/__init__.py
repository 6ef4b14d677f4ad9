"""lm-evaluation-harness interop, in one place: what lm-eval sees of an instance and the hashes
its ``--log_samples`` records (:mod:`.docs`), ``refbench export lm-eval`` (:mod:`.export`), and
``refbench results import-lm-eval`` of one data file (:mod:`.samples`, checked field by field in
:mod:`.checks`) or of a whole folder's group (:mod:`.suite`).

It lives in ``runs`` because the import makes ordinary run folders (``runs/record.py``) and a
run of ``llm-loglik`` records lm-eval's hashes in its predictions: both directions of that
need are inside one floor."""
