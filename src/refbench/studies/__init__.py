"""Human studies: KITMUS validation, AltEntities expression collection, TNE two-stage annotation.

A study is one SQLite file (WAL) holding the items, the annotators and their tokens, each
annotator's seeded order and option order, and every answer as it is given. The web UI is a
Flask blueprint (``refbench.studies.web.make_study_blueprint``) that any app can mount;
``refbench study serve`` mounts it in a minimal app of its own.
"""
