"""The stream's sink: where a micro-batch's outputs go, and how they become visible exactly once.

Structured Streaming records a batch's input in the checkpoint's offset log before running it and
marks it done in the commit log after ``foreachBatch`` returns; after a crash the last batch is
run again with the same input and the same batch id. So the sink is idempotent per batch id:

1. every output is written to ``<dir>/_tmp/batch_id=N`` first (:meth:`BatchSink.write`);
2. then a manifest ``output_dir/_replfilter/batch_id=N.json`` is written atomically (write +
   rename) with the batch's :class:`BatchStats` and the checkpoint's query id;
3. then each temporary directory is renamed to ``<dir>/batch_id=N``.

A batch run again finds the manifest (:meth:`BatchSink.recorded`) and only finishes the renames:
it neither recomputes (the state may have changed since) nor writes twice. Without the manifest,
nothing of the batch is visible and the temporary output is simply overwritten. The query id in
the manifest makes an output directory written by a different stream (an old checkpoint deleted,
batch ids starting again at 0) refused rather than mixed.

Files: local paths go through ``os``, anything else through Hadoop's ``FileSystem``
(:class:`FileStore`).
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from dataclasses import asdict, dataclass, field, fields
from urllib.parse import urlparse

from pyspark.sql import DataFrame


def join_path(base: str, *parts: str) -> str:
    return "/".join([base.rstrip("/"), *parts])


def is_local(path: str) -> bool:
    scheme = urlparse(path).scheme
    return scheme in ("", "file") or len(scheme) == 1  # "C:" on Windows


def local_path(path: str) -> str:
    return urlparse(path).path if path.startswith("file:") else path


class FileStore:
    """The few file operations the sink needs, atomic renames included."""

    def __init__(self, spark):
        self._spark = spark

    def _hadoop(self, path: str):
        jvm = self._spark._jvm
        p = jvm.org.apache.hadoop.fs.Path(path)
        return p.getFileSystem(self._spark._jsc.hadoopConfiguration()), p

    def exists(self, path: str) -> bool:
        if is_local(path):
            return os.path.exists(local_path(path))
        fs, p = self._hadoop(path)
        return bool(fs.exists(p))

    def delete(self, path: str) -> None:
        if is_local(path):
            shutil.rmtree(local_path(path), ignore_errors=True)
            if os.path.isfile(local_path(path)):
                os.remove(local_path(path))
            return
        fs, p = self._hadoop(path)
        fs.delete(p, True)

    def rename(self, src: str, dst: str) -> None:
        """Atomic on POSIX file systems and HDFS (object stores copy; see README)."""
        if is_local(src):
            os.makedirs(os.path.dirname(local_path(dst)) or ".", exist_ok=True)
            os.rename(local_path(src), local_path(dst))
            return
        fs, s = self._hadoop(src)
        _, d = self._hadoop(dst)
        fs.mkdirs(d.getParent())
        if not fs.rename(s, d):
            raise OSError(f"could not rename {src} to {dst}")

    def write_text(self, path: str, text: str) -> None:
        """Write atomically: a temporary file renamed into place."""
        tmp = f"{path}.{uuid.uuid4().hex}.tmp"
        if is_local(path):
            os.makedirs(os.path.dirname(local_path(path)) or ".", exist_ok=True)
            with open(local_path(tmp), "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(local_path(tmp), local_path(path))
            return
        fs, p = self._hadoop(tmp)
        out = fs.create(p, True)
        out.write(bytearray(text.encode("utf-8")))
        out.close()
        self.rename(tmp, path)

    def read_text(self, path: str) -> str | None:
        if is_local(path):
            try:
                with open(local_path(path), encoding="utf-8") as handle:
                    return handle.read()
            except FileNotFoundError:
                return None
        if not self.exists(path):
            return None
        fs, p = self._hadoop(path)
        stream = fs.open(p)
        try:
            return self._spark._jvm.org.apache.commons.io.IOUtils.toString(stream, "UTF-8")
        finally:
            stream.close()


@dataclass
class BatchStats:
    """What one micro-batch did; the manifest records it, so a batch run again reports it too."""

    batch_id: int
    events: int = 0
    applied: int = 0
    skipped: int = 0
    dead: int = 0
    distinct_keys: int | None = 0
    """Distinct decision keys of the rows the exact path decided (every row's in two passes)."""
    files: int = 0
    seconds: float = 0.0
    recovered: bool = False
    decided_by: str = ""
    """``compiled`` (column expressions for the rows they cover, the exact path for the others)
    or ``two passes`` (every row by the exact path): :mod:`.stream`."""
    exact_events: int | None = None
    """The rows the exact path (the reference evaluator, per distinct key) decided."""
    counters_from: str | None = None
    """Where the statistics and COUNTER moves came from: ``write`` (observed as the applied
    events were written), ``aggregate`` (one more job over the key columns) or ``keys`` (the
    counted keys of two passes)."""
    written_first: bool = False
    """The applied events were written before any other job, every row checked as it was
    written to be covered by the expressions (:meth:`.stream.EventStream._write_first`); False
    when a key job found the exact path's keys first."""
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    file_names: list[str] = field(default_factory=list)
    position: dict | None = None
    """Binary or relay log input: where the batch ended, ``{"log", "pos", "format_pos"}`` (the
    end of a transaction: :mod:`.binlog_stream`)."""

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "BatchStats":
        data = json.loads(text)
        known = {f.name for f in fields(cls)}
        # (a manifest of an earlier version may carry fields since dropped, e.g. ``one_pass``)
        return cls(**{name: value for name, value in data.items() if name in known})


@dataclass(frozen=True)
class BatchOutput:
    """One output directory of one batch: written at ``temporary``, renamed to ``final``."""

    temporary: str
    final: str


@dataclass(frozen=True)
class BatchOutputs:
    """A batch's outputs: applied events, dead letters, and skipped events when kept."""

    applied: BatchOutput
    dead: BatchOutput
    skipped: BatchOutput | None

    def __iter__(self):
        yield self.applied
        yield self.dead
        if self.skipped is not None:
            yield self.skipped


class BatchSink:
    """The output directories of one stream, and the manifest protocol over them."""

    def __init__(self, spark, output_dir: str, dead_dir: str, skipped_dir: str | None, checkpoint_dir: str):
        self.store = FileStore(spark)
        self.output_dir = output_dir
        self.dead_dir = dead_dir
        self.skipped_dir = skipped_dir
        self.checkpoint_dir = checkpoint_dir
        self._query_id: str | None = None

    def outputs(self, batch_id: int) -> BatchOutputs:
        def output(directory: str) -> BatchOutput:
            name = f"batch_id={batch_id}"
            return BatchOutput(join_path(directory, "_tmp", name), join_path(directory, name))

        skipped = output(self.skipped_dir) if self.skipped_dir else None
        return BatchOutputs(output(self.output_dir), output(self.dead_dir), skipped)

    def write(self, frame: DataFrame, output: BatchOutput) -> None:
        """Write ``frame`` (Parquet) to the output's temporary directory, replacing what a
        previous, unfinished run of the batch left there."""
        self.store.delete(output.temporary)
        frame.write.mode("overwrite").parquet(output.temporary)

    def _manifest_path(self, batch_id: int) -> str:
        return join_path(self.output_dir, "_replfilter", f"batch_id={batch_id}.json")

    def query_id(self) -> str:
        """The checkpoint's query id (stable across restarts of the same checkpoint)."""
        if self._query_id is None:
            text = self.store.read_text(join_path(self.checkpoint_dir, "metadata"))
            self._query_id = json.loads(text)["id"] if text else "no-checkpoint"
        return self._query_id

    def recorded(self, batch_id: int) -> BatchStats | None:
        """The stats of a batch whose manifest was written (its renames finished now), or None.
        Raises when the manifest is another stream's."""
        manifest = self.store.read_text(self._manifest_path(batch_id))
        if manifest is None:
            return None
        owner = json.loads(manifest).get("query_id")
        if owner != self.query_id():
            raise RuntimeError(
                f"{self.output_dir} already holds batch {batch_id} of another stream "
                f"(query {owner}, this checkpoint is query {self.query_id()}): "
                "use an empty output directory with a new checkpoint"
            )
        self.finish_renames(batch_id)
        stats = BatchStats.from_json(manifest)
        stats.recovered = True
        return stats

    def commit(self, stats: BatchStats) -> None:
        """Write the manifest (the batch's commit point), then make its outputs visible."""
        record = json.loads(stats.to_json())
        record["query_id"] = self.query_id()
        self.store.write_text(self._manifest_path(stats.batch_id), json.dumps(record, sort_keys=True))
        self.finish_renames(stats.batch_id)

    def finish_renames(self, batch_id: int) -> None:
        for output in self.outputs(batch_id):
            if self.store.exists(output.final):
                continue
            if self.store.exists(output.temporary):
                self.store.rename(output.temporary, output.final)

    def batch_files(self, batch_id: int) -> list[str]:
        """The files of batch ``batch_id``, from the file source's log in the checkpoint (written
        before the batch runs): ``sources/0/N``, or ``N.compact`` every tenth batch."""
        base = join_path(self.checkpoint_dir, "sources", "0")
        for name, only_this in ((str(batch_id), False), (f"{batch_id}.compact", True)):
            text = self.store.read_text(join_path(base, name))
            if text is None:
                continue
            files = []
            for line in text.splitlines()[1:]:  # the first line is the log version ("v1")
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if not only_this or entry.get("batchId") == batch_id:
                    files.append(entry.get("path", ""))
            return sorted(files)
        return []


__all__ = ["BatchOutput", "BatchOutputs", "BatchSink", "BatchStats", "FileStore", "is_local", "join_path", "local_path"]
