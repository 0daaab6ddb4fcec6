"""What one ``replfilter stream`` is configured with (:class:`StreamConfig`, read by
:class:`.stream.EventStream`)."""

from __future__ import annotations

from dataclasses import dataclass

from .sink import join_path


@dataclass
class StreamConfig:
    events_dir: str
    output_dir: str
    checkpoint_dir: str
    skipped_dir: str | None = None
    dead_letter_dir: str | None = None
    input_format: str = "json"
    """``json``, ``parquet``, ``debezium`` or ``binlog`` (binary or relay log files:
    :mod:`.binlog_stream`; ``debezium_channel`` is then the channel of their events)."""
    binlog_rows: bool = False
    """``binlog``: decode row images into the ``record`` of each Table_map row (``values``)."""
    debezium_channel: str = ""
    max_files_per_trigger: int | None = None
    trigger_seconds: float = 1.0
    relay_channel: str | None = None
    """Set by the in-shell applier: the events are that channel's relay log. Events naming no
    channel (``""``) are taken as that channel's; events naming another are dead letters."""
    query_name: str | None = None
    compiled: bool = True
    """Decide the rows the compiled expressions cover by them, the others by the exact path
    (:mod:`.compiled_path`); False (``--two-pass``): every row by the exact path's two passes
    (pass 1 counts every distinct key, the reference evaluator decides each)."""

    @property
    def dead_dir(self) -> str:
        return self.dead_letter_dir or join_path(self.output_dir, "_dead_letter")


__all__ = ["StreamConfig"]
