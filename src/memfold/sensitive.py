"""Secrets and identifiers that must not become memories or reach a prompt.

:func:`find_secrets` finds, in a message's text:

* **labelled secrets**: a value after a label such as "password", "passcode", "PIN",
  "security code", "SSN", "passport number", "IBAN", "account number", "API key",
  "token" ("my bank password is hunter2", "PIN: 4921");
* **shaped identifiers** with no label: US social security numbers (``078-05-1120``),
  payment card numbers (13-19 digits passing the Luhn check), IBANs (mod-97 checksum),
  and API keys in their vendors' published formats (``sk-...``, ``AKIA...``, ``ghp_...``,
  ``xox?-...``, ``AIza...``).

What memfold does with them (the policy lives where each layer decides):

* the raw conversation log keeps what the user said (the user's own record);
* the router flags the message ``secret`` and writes no profile fact that holds one;
* L3 never distils a note that holds one;
* ``context()`` (and ``recall``) show ``[redacted password]`` in its place unless the
  deployment turns redaction off (``ContextSettings.redact_secrets``).

Shapes, labels and checksums are generic (no list keyed to any dataset); a labelled
value must look like a value (a digit or symbol in it, or a word that is not one of the
function words that follow "password is" in ordinary talk: "my password is too short").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

SECRET_FLAG = "secret"

_LABELS = {
    "password": r"(?:[\w-]+ )?pass(?:word|code|phrase)|pwd",
    "pin": r"pin(?: code| number)?|security code|cvv|cvc|unlock code",
    "national_id": (r"ssn|social security(?: number| no\.?)?|national insurance(?: number)?|"
                    r"passport(?: number| no\.?)?|tax (?:id|number)|driver'?s licen[cs]e(?: number)?"),
    "bank_account": r"iban|account number|routing number|sort code",
    "api_key": r"api[ _-]?key|access token|auth token|secret key|private key|token",
}
_LABELLED = re.compile(
    r"\b(?P<label>" + "|".join(f"(?P<{kind}>{p})" for kind, p in _LABELS.items()) + r")\b"
    r"(?P<sep>\s*(?:is|was|=|:|-|of)?\s*)[\"'`]?(?P<value>[^\s,;\"'`]{3,})", re.IGNORECASE)
_NOT_A_VALUE = frozenset("""the a an my your his her our their its this that it not too so very still
really now also just same different changed expired wrong weak strong long short easy hard
stored saved written in on at for of to and or but is was be been being reset locked new old
required needed missing forgotten somewhere here there what which""".split())
_SSN = re.compile(r"\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b")
_CARD = re.compile(r"\b\d(?:[ -]?\d){12,18}\b")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b")
_API_KEY = re.compile(r"\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{16,}|AKIA[0-9A-Z]{16}|"
                      r"gh[pousr]_[A-Za-z0-9]{30,}|xox[abprs]-[A-Za-z0-9\-]{10,}|AIza[0-9A-Za-z_\-]{35})")


# a profile key naming one of these is a secret whatever its value looks like
SECRET_KEY_WORDS = ("password", "passcode", "passphrase", "pin", "ssn", "social_security",
                    "passport", "iban", "card_number", "api_key", "token", "security_code")


def is_secret_fact(key: str, value: str, secret_values: tuple[str, ...] = ()) -> bool:
    """Would the profile fact ``key = value`` hold a secret? (its key names one, its value
    is one, or it holds a value found in the message it came from)."""
    parts = "_" + "_".join(re.split(r"[\W_]+", key.lower())) + "_"
    if any(f"_{word}_" in parts for word in SECRET_KEY_WORDS):  # whole words: not "shopping"
        return True
    if any(v in value for v in secret_values):
        return True
    return has_secret(f"{key.replace('_', ' ')} is {value}") or has_secret(value)


@dataclass(frozen=True, slots=True)
class Secret:
    kind: str  # password, pin, national_id, card_number, bank_account, api_key
    start: int
    end: int


def find_secrets(text: str) -> list[Secret]:
    """Every secret value in ``text``, as non-overlapping spans in text order."""
    return list(_secrets_in(text))


# context() scans every candidate line of every call, and the same memories come back
# call after call: ~16 ms of a 1,000-token context() went to these expressions.
@lru_cache(maxsize=16_384)
def _secrets_in(text: str) -> tuple[Secret, ...]:
    found = [*_labelled(text), *_shaped(text)]
    found.sort(key=lambda s: (s.start, -(s.end - s.start)))
    kept: list[Secret] = []
    for secret in found:
        if not kept or secret.start >= kept[-1].end:
            kept.append(secret)
    return tuple(kept)


def has_secret(text: str) -> bool:
    return bool(find_secrets(text))


def redact(text: str) -> str:
    """``text`` with each secret value replaced by ``[redacted KIND]``."""
    secrets = find_secrets(text)
    if not secrets:
        return text
    out, last = [], 0
    for secret in secrets:
        out.append(text[last:secret.start])
        out.append(f"[redacted {secret.kind.replace('_', ' ')}]")
        last = secret.end
    out.append(text[last:])
    return "".join(out)


def _labelled(text: str) -> list[Secret]:
    found = []
    for match in _LABELLED.finditer(text):
        value = match.group("value").rstrip(".!?)")
        said_is = bool(match.group("sep").strip())  # "password is X", "PIN: X"
        if not _looks_like_value(value) or (not said_is and value.isalpha()):
            continue  # "my passcode again": a word after the label, not a value
        kind = next(k for k in _LABELS if match.group(k))
        start = match.start("value")
        found.append(Secret(kind, start, start + len(value)))
    return found


def _looks_like_value(value: str) -> bool:
    if any(not c.isalpha() for c in value):
        return True  # digits or symbols: hunter2, 4921, 078-05-1120
    return value.lower() not in _NOT_A_VALUE


def _shaped(text: str) -> list[Secret]:
    found = [Secret("national_id", m.start(), m.end()) for m in _SSN.finditer(text)]
    found += [Secret("card_number", m.start(), m.end()) for m in _CARD.finditer(text)
              if _luhn(re.sub(r"\D", "", m.group()))]
    found += [Secret("bank_account", m.start(), m.end()) for m in _IBAN.finditer(text)
              if _iban_ok(m.group().replace(" ", ""))]
    found += [Secret("api_key", m.start(), m.end()) for m in _API_KEY.finditer(text)]
    return found


def _luhn(digits: str) -> bool:
    if not 13 <= len(digits) <= 19 or len(set(digits)) == 1:
        return False
    total = 0
    for index, char in enumerate(reversed(digits)):
        n = int(char)
        if index % 2:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


def _iban_ok(iban: str) -> bool:
    if not 15 <= len(iban) <= 34:
        return False
    moved = iban[4:] + iban[:4]
    number = "".join(str(int(c, 36)) for c in moved)
    return int(number) % 97 == 1
