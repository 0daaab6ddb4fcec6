"""The MySQL server version replfilter simulates: 8.4 by default, 8.0 on request.

Where the two differ for this dialect (README, "MySQL 8.0 on request"): 8.4 removed the SLAVE /
MASTER spellings (a syntax error there, a statement with warning 1287 in 8.0); 8.0 names the
SHOW SLAVE STATUS columns with Master/Slave; a few error texts say CHANGE MASTER; executable
comments ``/*!NNNNN ... */`` compare NNNNN with the version's number.
"""

from __future__ import annotations

from enum import Enum


class ServerVersion(Enum):
    """A simulated server version; the value is what ``SELECT @@version`` answers."""

    MYSQL_8_4 = "8.4.3"
    MYSQL_8_0 = "8.0.40"

    @classmethod
    def from_option(cls, text: str) -> "ServerVersion":
        """``--mysql-version=8.0`` / ``8.4`` (a full version such as 8.0.36 names its series).
        Raises ValueError for any other series."""
        parts = text.strip().split(".")
        series = ".".join(parts[:2])
        for version in cls:
            if version.series == series and all(p.isdigit() for p in parts):
                return version
        raise ValueError(text)

    @property
    def series(self) -> str:
        return ".".join(self.value.split(".")[:2])

    @property
    def number(self) -> int:
        """MYSQL_VERSION_ID: 8.4.3 -> 80403 (what ``/*!NNNNN`` is compared with)."""
        major, minor, patch = (int(p) for p in self.value.split("."))
        return major * 10000 + minor * 100 + patch

    @property
    def legacy_spellings(self) -> bool:
        """START/STOP/RESET/SHOW SLAVE, CHANGE MASTER TO and MASTER_* options: 8.0 runs them
        with warning 1287; 8.4.0 removed them from the grammar."""
        return self is ServerVersion.MYSQL_8_0


DEFAULT_VERSION = ServerVersion.MYSQL_8_4
