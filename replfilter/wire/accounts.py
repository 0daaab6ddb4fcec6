"""Who may log in to ``replfilter serve``: accounts from an option file or a password file.

mysqld keeps accounts in its grant tables; the simulated replica has none, so they come from
where a DBA already keeps credentials: ``--user`` with ``--password-file`` (the first line of the
file is the password, as ``mysql --password-file`` would read it if it had one; never a password
on the command line, where ``ps`` shows it), or the ``user``/``password`` of the ``[client]``
group of ``--defaults-file``, the group the ``mysql`` client reads. The server keeps only
``SHA1(SHA1(password))``, what ``mysql_native_password`` stores, and checks the client's scramble
with mysql-mimic's plugin. An unknown user and a wrong password are the same refusal (1045), so
the error does not tell which accounts exist.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Mapping, Optional

from mysql_mimic.auth import IdentityProvider, NativePasswordAuthPlugin, User

CLIENT_GROUPS = ("client",)


class AccountError(Exception):
    """Accounts that cannot be read; the message names the file."""


@dataclass(frozen=True)
class Accounts:
    """user name -> ``SHA1(SHA1(password))`` in hex; None means ``--skip-grant-tables``."""

    hashes: Mapping[str, str] | None

    @classmethod
    def of(cls, passwords: Mapping[str, str]) -> "Accounts":
        # An empty password stores an empty string: the plugin's quick path accepts an empty reply.
        return cls({user: NativePasswordAuthPlugin.create_auth_string(pw) if pw else ""
                    for user, pw in passwords.items()})

    @property
    def skip_grant_tables(self) -> bool:
        return self.hashes is None


def read_password_file(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.readline().rstrip("\r\n")
    except (OSError, UnicodeDecodeError) as exc:
        raise AccountError(f"Can't read password file '{path}': {getattr(exc, 'strerror', None) or exc}") from None


class AccountProvider(IdentityProvider):
    """mysql-mimic's identity provider over :class:`Accounts`: every name gets a user, an unknown
    one with a password nobody knows, so that it fails exactly as a wrong password does."""

    def __init__(self, accounts: Accounts) -> None:
        self.accounts = accounts
        self._nobody = NativePasswordAuthPlugin.create_auth_string(secrets.token_hex(32))

    async def get_user(self, username: str) -> Optional[User]:
        hashes = self.accounts.hashes
        if hashes is None:
            return User(name=username, auth_plugin=NativePasswordAuthPlugin.name, auth_string=None)
        return User(name=username, auth_plugin=NativePasswordAuthPlugin.name,
                    auth_string=hashes.get(username, self._nobody))


class AnyPasswordPlugin(NativePasswordAuthPlugin):
    """``--skip-grant-tables``: every user, any password, as mysqld without grant tables."""

    def password_matches(self, user: User, scramble: bytes, nonce: bytes) -> bool:
        return True


class SkipGrantProvider(AccountProvider):
    def get_plugins(self):  # type: ignore[no-untyped-def]
        return [AnyPasswordPlugin()]
