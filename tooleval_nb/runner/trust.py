"""Whose a stored job is, and what resuming it would run or contact.

``te.resume(job_id)`` rebuilds a job from what its store says: the suite (with its code
graders), the models (with their endpoints and the variables their keys are read from), the
agent to import and the live tools (an MCP command line to spawn, or a URL). A store is a file
that can be shared; what it says is only as trustworthy as whoever wrote it. So a job is resumed
without a question only when it is this user's own: recorded by this user on this host, in a
store file this user owns, and signed (:func:`job_origin`, stored with the job's configuration:
an HMAC of the whole configuration under a key only this user can read, ``trust.key`` in the
user data folder, or the file ``$TOOLEVAL_TRUST_KEY`` names). A store's text can say anything;
the signature says this user's own tooleval_nb wrote it, unchanged since.
Otherwise :func:`check_trust` refuses, listing what resuming would run or contact
(:func:`job_reach`), until the caller passes ``trust=True``.

I/O: the key file (created ``0600`` at the first job) and the store file's owner (``os.stat``).
"""

from __future__ import annotations

import getpass
import hashlib
import hmac
import json
import os
import shlex
import socket
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..credentials import key_variable, redact_command
from ..errors import StoreError
from ..suite import SuiteText

__all__ = [
    "ENV_TRUST_KEY",
    "JobReach",
    "job_origin",
    "job_reach",
    "foreign_reasons",
    "check_trust",
    "config_signature",
]

#: the environment variable naming the file of this user's signing key (default:
#: ``trust.key`` in the user data folder, beside the default run store)
ENV_TRUST_KEY = "TOOLEVAL_TRUST_KEY"
_KEYS: dict[Path, bytes] = {}


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        return str(os.getuid()) if hasattr(os, "getuid") else "?"


def _key_path() -> Path:
    named = os.environ.get(ENV_TRUST_KEY)
    if named:
        return Path(named).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("tooleval_nb", appauthor=False)) / "trust.key"


def _key() -> bytes:
    """This user's signing key: read from its file, which is created (``0600``, 32 random
    bytes) when missing."""
    path = _key_path()
    key = _KEYS.get(path)
    if key is not None:
        return key
    try:
        key = path.read_bytes()
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        fresh = os.urandom(32)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it first
            key = path.read_bytes()
        else:
            with os.fdopen(fd, "wb") as fh:
                fh.write(fresh)
            key = fresh
    except OSError as exc:
        raise StoreError(
            f"cannot read the signing key {path} of your jobs ({exc}); set "
            f"{ENV_TRUST_KEY} to a file you can write"
        ) from exc
    if len(key) < 16:
        raise StoreError(
            f"the signing key {path} is too short ({len(key)} bytes); move it aside: a new "
            "one is made at the next run (your jobs recorded so far then need trust=True)"
        )
    _KEYS[path] = key
    return key


def config_signature(suite_text: str, rest: dict[str, Any]) -> str:
    """The HMAC of a job's configuration: the suite's canonical text and the rest (without
    ``origin``) as sorted JSON."""
    mac = hmac.new(_key(), digestmod=hashlib.sha256)
    mac.update(suite_text.encode())
    mac.update(b"\0")
    mac.update(json.dumps(rest, sort_keys=True, ensure_ascii=False, default=str).encode())
    return mac.hexdigest()


def job_origin(suite_text: str, rest: dict[str, Any]) -> dict[str, Any]:
    """Who records a job, stored in its configuration: this user's name, this host, and the
    signature of the configuration (``suite_text`` and ``rest``: see
    :func:`config_signature`)."""
    return {
        "user": _user(),
        "host": socket.gethostname(),
        "signature": config_signature(suite_text, rest),
    }


def _signed(config: dict[str, Any], origin: dict[str, Any]) -> bool:
    rest = {k: v for k, v in config.items() if k not in ("suite", "origin")}
    try:
        expected = config_signature(SuiteText(config.get("suite") or {}).text(), rest)
    except StoreError:
        return False
    return hmac.compare_digest(str(origin.get("signature") or ""), expected)


class JobReach(BaseModel):
    """What resuming a stored job would run or contact."""

    #: command lines it would spawn (MCP servers)
    commands: list[str] = []
    #: code it would run: the suite's code graders (``case: module : function``)
    code: list[str] = []
    #: ``module:callable`` of the agent it would import
    agent: str | None = None
    #: endpoints it would send requests to, with the variable whose key goes with them
    endpoints: list[str] = []
    #: MCP URLs it would connect to
    urls: list[str] = []

    def lines(self) -> list[str]:
        out = [f"spawns {c}" for c in self.commands]
        out += [f"connects to {u}" for u in self.urls]
        out += [f"runs code grader {c}" for c in self.code]
        if self.agent:
            out.append(f"imports the agent {self.agent}")
        out += [f"calls {e}" for e in self.endpoints]
        return out


def job_reach(config: dict[str, Any]) -> JobReach:
    """What the stored job ``config`` would run or contact when resumed."""
    settings = config.get("settings") or {}
    reach = JobReach(agent=settings.get("agent"))
    live = settings.get("live_tools")
    if isinstance(live, str) and live.lower().startswith(("http://", "https://")):
        reach.urls.append(live)
    elif isinstance(live, str) and not live.startswith("object:"):
        reach.commands.append(shlex.join(redact_command(shlex.split(live))))
    elif isinstance(live, list):
        reach.commands.append(shlex.join(redact_command([str(a) for a in live])))
    if settings.get("code_graders", True):
        for case in (config.get("suite") or {}).get("cases") or []:
            for grader in case.get("graders") or []:
                if grader.get("type") == "code":
                    reach.code.append(
                        f"{case.get('id') or case.get('name')}: {grader.get('module')} : "
                        f"{grader.get('function')}()"
                    )
    for target in config.get("targets") or []:
        spec = target.get("spec") or {}
        model = str(spec.get("model"))
        variable = spec.get("api_key_env") or key_variable(model)
        where = spec.get("api_base") or "its provider"
        sent = f", sending the key in ${variable}" if variable else ""
        reach.endpoints.append(f"{model} at {where}{sent}")
    return reach


def foreign_reasons(
    config: dict[str, Any], owner: str | None, store_path: str | os.PathLike[str] | None
) -> list[str]:
    """Why a stored job is not this user's own (empty: it is)."""
    reasons: list[str] = []
    origin = config.get("origin")
    here = {"user": _user(), "host": socket.gethostname()}
    if not isinstance(origin, dict):
        reasons.append("it records no user (written by another tool or an older version)")
    else:
        if not _signed(config, origin):
            reasons.append(
                "its configuration is not signed by your key (another user or tool wrote it, "
                "or it was changed since)"
            )
        if origin.get("user") != here["user"]:
            reasons.append(f"it was recorded by user {origin.get('user')!r}, not {here['user']!r}")
        if origin.get("host") != here["host"]:
            reasons.append(f"it was recorded on host {origin.get('host')!r}, not {here['host']!r}")
    host = (owner or "").rpartition(":")[0]
    if host and host != here["host"] and not any("host" in r for r in reasons):
        reasons.append(f"it last ran on host {host!r}")
    if store_path is not None and hasattr(os, "getuid"):
        try:
            uid = Path(store_path).stat().st_uid
        except OSError:
            uid = None
        if uid is not None and uid != os.getuid():
            reasons.append(f"the store file {store_path} belongs to another user (uid {uid})")
    return reasons


def check_trust(
    job_id: str,
    config: dict[str, Any],
    owner: str | None,
    store_path: str | os.PathLike[str] | None,
    trust: bool,
) -> None:
    """Refuse to resume a job that is not this user's own unless ``trust`` is true.

    Raises:
        StoreError: the job is foreign; the message lists why and what resuming it would run
            or contact, and how to go on (``trust=True``, ``--trust``).
    """
    if trust:
        return
    reasons = foreign_reasons(config, owner, store_path)
    if not reasons:
        return
    reach = job_reach(config).lines()
    listed = "".join(f"\n  - {line}" for line in reach) or "\n  - (nothing beyond its models)"
    raise StoreError(
        f"job {job_id!r} is not yours to resume without a look: {'; '.join(reasons)}. "
        f"Resuming it would:{listed}\nNothing was run. If you trust this store, resume with "
        f"te.resume({job_id!r}, trust=True) (--trust on the command line); else start your "
        "own run of the suite with te.run_eval"
    )
