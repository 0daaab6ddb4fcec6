"""The PySpark runtime: apply a replica's live filter state to streams of replication events.

Importing this package does not import pyspark; the modules that need it do (``transform``,
``ingest``, ``stream``...). ``replfilter`` itself never imports this package unless Spark is
needed (``replfilter stream``, or ``START REPLICA`` on a channel that has an event source).

Public API (see each module):

* :func:`replfilter.spark_runtime.session.get_spark` — a quiet SparkSession (``local[*]`` or any
  master URL).
* :data:`replfilter.spark_runtime.schema.EVENT_SCHEMA` — the published schema of event rows.
* :func:`replfilter.spark_runtime.ingest.read_events` / ``parse_event_lines`` /
  ``parse_debezium`` — files and Debezium envelopes to event rows plus dead letters.
* :func:`replfilter.spark_runtime.transform.apply_filters` / ``applied_events`` /
  ``decide_frame`` — the decisions, equal to the reference evaluator's
  (:mod:`~replfilter.spark_runtime.key_cache` remembers the keys of files decided before).
* :class:`replfilter.spark_runtime.stream.EventStream` — Structured Streaming, exactly once.
* :mod:`replfilter.spark_runtime.applier` — the in-shell background applier (START REPLICA).
"""
