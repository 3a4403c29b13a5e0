"""API keys, each scoped to a set of user ids.

A key file is JSON::

    {"keys": [
        {"name": "assistant-a", "key": "mf_live_...", "users": ["alice", "bob"]},
        {"name": "ops", "sha256": "9f86d0...", "users": "*"}
    ]}

``key`` holds the secret itself; ``sha256`` its hex digest instead (so the file need not
hold the secret). ``users`` lists the user ids the key may read and write, or ``"*"`` for
all of them. ``MEMFOLD_API_KEYS`` holds the same list inline: ``KEY=alice,bob;KEY2=*``.
Keys are compared in constant time; a request for a user outside the key's scope is 403.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from memfold.errors import AuthenticationError, ConfigError, PermissionDeniedError

ALL_USERS = "*"


@dataclass(frozen=True)
class ApiKey:
    """One key: a name for logs, the digest of its secret, and the user ids it may touch."""

    name: str
    digest: bytes
    users: frozenset[str] | None  # None: every user

    def allows(self, user_id: str) -> bool:
        return self.users is None or user_id in self.users


#: The identity of requests when the service runs without keys (loopback only).
ANONYMOUS = ApiKey(name="anonymous", digest=b"", users=None)


def _digest(secret: str) -> bytes:
    return hashlib.sha256(secret.encode("utf-8")).digest()


class KeyRing:
    """The keys a server accepts. An empty ring means authentication is off."""

    def __init__(self, keys: Iterable[ApiKey] = ()) -> None:
        self.keys = list(keys)

    @property
    def enabled(self) -> bool:
        return bool(self.keys)

    def authenticate(self, secret: str | None) -> ApiKey:
        if not self.enabled:
            return ANONYMOUS
        if not secret:
            raise AuthenticationError("this server requires an API key (Authorization: Bearer KEY)")
        digest = _digest(secret)
        # compare against every key, so the time taken does not say which prefix matched
        found = [key for key in self.keys if hmac.compare_digest(key.digest, digest)]
        if not found:
            raise AuthenticationError("unknown API key")
        return found[0]

    @staticmethod
    def require(key: ApiKey, user_id: str) -> None:
        if not key.allows(user_id):
            raise PermissionDeniedError(f"API key {key.name!r} is not scoped to user {user_id!r}",
                                        hint="ask for a key that lists this user id")

    @classmethod
    def from_file(cls, path: Path) -> KeyRing:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ConfigError(f"cannot read the API key file {path}: {exc}") from exc
        entries = data.get("keys") if isinstance(data, dict) else None
        if not isinstance(entries, list):
            raise ConfigError(f"{path}: expected {{\"keys\": [...]}}")
        return cls(_key_from_entry(entry, f"{path} key #{n}") for n, entry in enumerate(entries, 1))

    @classmethod
    def from_inline(cls, text: str) -> KeyRing:
        """``KEY=alice,bob;KEY2=*`` (the MEMFOLD_API_KEYS form)."""
        keys = []
        for n, part in enumerate(filter(str.strip, text.split(";")), 1):
            secret, sep, users = part.strip().partition("=")
            if not sep or not secret:
                raise ConfigError(f"MEMFOLD_API_KEYS entry #{n} is not KEY=user1,user2 or KEY=*")
            keys.append(_key_from_entry({"name": f"env#{n}", "key": secret,
                                         "users": _users(users)}, f"MEMFOLD_API_KEYS entry #{n}"))
        return cls(keys)


def _users(text: str) -> str | list[str]:
    text = text.strip()
    return ALL_USERS if text == ALL_USERS else [u.strip() for u in text.split(",") if u.strip()]


def _key_from_entry(entry: object, where: str) -> ApiKey:
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: expected an object with key/sha256 and users")
    users = entry.get("users")
    if users != ALL_USERS and not (isinstance(users, list) and users
                                   and all(isinstance(u, str) and u for u in users)):
        raise ConfigError(f"{where}: users must be \"*\" or a non-empty list of user ids")
    if isinstance(entry.get("key"), str) and entry["key"]:
        digest = _digest(entry["key"])
    elif isinstance(entry.get("sha256"), str):
        try:
            digest = bytes.fromhex(entry["sha256"])
        except ValueError as exc:
            raise ConfigError(f"{where}: sha256 is not a hex digest") from exc
    else:
        raise ConfigError(f"{where}: give the secret as \"key\" or its hex digest as \"sha256\"")
    scope = None if users == ALL_USERS else frozenset(users)
    return ApiKey(name=str(entry.get("name") or where), digest=digest, users=scope)
