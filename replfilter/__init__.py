"""replfilter: MySQL 8.4's replication-filter dialect, interpreted; and applied to event streams.

The import is light on purpose (no pyspark, no prompt_toolkit): scripts and the shell start fast.
"""

__version__ = "0.1.0"
