"""Reading MySQL's and MariaDB's binary logs and relay logs (format v4) as events to decide.

One job per module, bottom-up: :mod:`.wire` (packed integers, bitmaps), :mod:`.framing` (magic,
headers, CRC32, Format_description), :mod:`.column_values` and :mod:`.json_binary` (row image
values), :mod:`.row_json` (values as JSON), :mod:`.row_codegen` (readers of whole rows events
compiled per table layout), :mod:`.rows` (Table_map and rows events), :mod:`.bodies` (every other event),
:mod:`.reader` (a file into parsed events), :mod:`.show_events` (SHOW BINLOG EVENTS),
:mod:`.as_events` (binlog events to the evaluator's events, grouped in transactions),
:mod:`.selection` (mysqlbinlog's selections) and :mod:`.decide` (deciding files).
"""
