"""Schema loading speed and memory: a generated mysqldump of N tables.

Writes ``mysqldump --no-data`` shaped files to a temporary directory (per table: the
``DROP TABLE IF EXISTS``, the ``SET @saved_cs_client`` lines, a 6-column CREATE TABLE with keys,
every 50th table with a trigger in a ``DELIMITER ;;`` block, versioned comments throughout) and
loads them into a fresh replica (source catalog + replica catalog), reporting:

Times are CPU seconds of the benchmark's process (``time.process_time``): on a shared machine
wall time measures the neighbours too.

* tables/s with no filter rules (the replica takes every statement),
* tables/s with filter rules (every DDL statement turned into its Query event by ``sql.logged_events``
  and decided by the reference evaluator, then applied on the replica when it passes),
* peak Python memory (tracemalloc) for the no-data dump, and for a full dump of a smaller
  schema with and without a large data section (one-line extended INSERTs, as mysqldump writes
  them): the peak must not grow with the data section.

    python bench/schema_load.py [--tables 50000] [--data-mb 1000] [--data-tables 1000]

Target (issue): >= 5,000 tables/s on the 50,000-table dump.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from replfilter.evaluation.catalog.loader import load_schema_file  # noqa: E402
from replfilter.server.session import Session  # noqa: E402
from replfilter.replica.state import ReplicaState  # noqa: E402

TABLES_PER_DB = 500

HEADER = """-- MySQL dump 10.13  Distrib 8.4.3, for Linux (x86_64)
/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!50503 SET NAMES utf8mb4 */;
/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;
"""


def table_ddl(name: str) -> str:
    return f"""
--
-- Table structure for table `{name}`
--

DROP TABLE IF EXISTS `{name}`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!50503 SET character_set_client = utf8mb4 */;
CREATE TABLE `{name}` (
  `id` bigint NOT NULL AUTO_INCREMENT,
  `account_id` int NOT NULL,
  `label` varchar(64) COLLATE utf8mb4_0900_ai_ci NOT NULL DEFAULT '',
  `amount` decimal(12,2) DEFAULT NULL,
  `created_at` datetime NOT NULL DEFAULT CURRENT_TIMESTAMP,
  `payload` json DEFAULT NULL,
  PRIMARY KEY (`id`),
  KEY `idx_{name}_account` (`account_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci;
/*!40101 SET character_set_client = @saved_cs_client */;
"""


def trigger_ddl(name: str) -> str:
    return f"""DELIMITER ;;
/*!50003 CREATE*/ /*!50017 DEFINER=`root`@`localhost`*/ /*!50003 TRIGGER `{name}_bi` BEFORE INSERT ON `{name}` FOR EACH ROW SET NEW.label = TRIM(NEW.label) */;;
DELIMITER ;
"""


def data_lines(name: str, budget: int) -> tuple[str, int]:
    """mysqldump's data section for one table: LOCK, one-line extended INSERTs of ~1 MB, UNLOCK."""
    row = "(1,42,'it''s a label; with a semicolon','12.50','2024-01-01 00:00:00','{\\\"k\\\": [1,2,3]}')"
    per_line = 1_000_000 // len(row)
    line = f"INSERT INTO `{name}` VALUES " + ",".join([row] * per_line) + ";\n"
    out = [f"LOCK TABLES `{name}` WRITE;\n/*!40000 ALTER TABLE `{name}` DISABLE KEYS */;\n"]
    written = 0
    while written < budget:
        out.append(line)
        written += len(line)
    out.append(f"/*!40000 ALTER TABLE `{name}` ENABLE KEYS */;\nUNLOCK TABLES;\n")
    return "".join(out), written


def write_dump(path: Path, tables: int, data_bytes: int = 0) -> int:
    """Returns the bytes of data written."""
    per_table = data_bytes // tables if data_bytes else 0
    total = 0
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(HEADER)
        for index in range(tables):
            if index % TABLES_PER_DB == 0:
                db = f"app_{index // TABLES_PER_DB:03d}"
                handle.write(f"\nCREATE DATABASE /*!32312 IF NOT EXISTS*/ `{db}` /*!40100 DEFAULT CHARACTER SET utf8mb4 */;\n\nUSE `{db}`;\n")
            name = f"t_{index:06d}"
            handle.write(table_ddl(name))
            if per_table:
                text, written = data_lines(name, per_table)
                handle.write(text)
                total += written
            if index % 50 == 0:
                handle.write(trigger_ddl(name))
    return total


def measure(path: Path, state: ReplicaState, trace: bool = False) -> tuple[float, int, int]:
    """CPU seconds of this process (the machine is shared: wall time measures the neighbours),
    peak traced memory, tables on the replica."""
    gc.collect()
    if trace:
        tracemalloc.start()
    start = time.process_time()
    result = load_schema_file(state, str(path))
    elapsed = time.process_time() - start
    peak = tracemalloc.get_traced_memory()[1] if trace else 0
    if trace:
        tracemalloc.stop()
    assert not result.warnings, result.warnings[:3]
    return elapsed, peak, result.state.replica_catalog.table_count


def with_rules() -> ReplicaState:
    session = Session(ReplicaState.fresh())
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE = ('%.tmp\\_%'), "
                         "REPLICATE_IGNORE_DB = (scratch)")
    return session.state


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=50_000)
    parser.add_argument("--data-mb", type=int, default=1000, help="data section size (at least one ~1 MB line per table)")
    parser.add_argument("--data-tables", type=int, default=1_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        nodata = Path(tmp) / "nodata.sql"
        write_dump(nodata, args.tables)
        size = os.path.getsize(nodata)
        print(f"--no-data dump: {args.tables:,} tables, {size / 1e6:.1f} MB")
        elapsed, _, count = measure(nodata, ReplicaState.fresh())
        print(f"  no filter rules:   {elapsed:6.2f} CPU s  {count / elapsed:8,.0f} tables/s")
        elapsed, _, count = measure(nodata, with_rules())
        print(f"  with filter rules: {elapsed:6.2f} CPU s  {count / elapsed:8,.0f} tables/s  (each DDL made an event by sql.logged_events and decided)")
        _, peak, _ = measure(nodata, ReplicaState.fresh(), trace=True)
        print(f"  peak Python memory (tracemalloc): {peak / 1e6:.1f} MB for {count:,} tables")
        nodata.unlink()

        small = Path(tmp) / "small.sql"
        write_dump(small, args.data_tables)
        full = Path(tmp) / "full.sql"
        written = write_dump(full, args.data_tables, args.data_mb * 1_000_000)
        _, peak_small, _ = measure(small, ReplicaState.fresh(), trace=True)
        elapsed_full, _, _ = measure(full, ReplicaState.fresh())
        _, peak_full, _ = measure(full, ReplicaState.fresh(), trace=True)
        print(f"full dump: {args.data_tables:,} tables + {written / 1e6:.0f} MB of INSERTs "
              f"({os.path.getsize(full) / 1e6:.0f} MB file): {elapsed_full:.2f} CPU s, "
              f"{os.path.getsize(full) / 1e6 / elapsed_full:,.0f} MB/s")
        print(f"  peak memory: {peak_small / 1e6:.1f} MB without the data section, "
              f"{peak_full / 1e6:.1f} MB with it (the longest line, ~1 MB, is the only data held)")


if __name__ == "__main__":
    main()
