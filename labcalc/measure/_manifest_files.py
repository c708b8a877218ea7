"""The files a manifest names: where they may be, and how a message may quote them.

Part of :mod:`labcalc.measure.manifest`. A manifest is input a grader may not trust (a
student's), so a name is checked before it reaches the file system: no control
characters, no component longer than the file system allows, no symlink loop, and by
default nothing outside the manifest's own folder (``allow_outside`` opts in). Messages
quote values and file text through :func:`show`: one line, printable, short.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

__all__ = ["PathProblem", "resolve_file", "show", "one_line", "MAX_NAME_CHARS", "MAX_QUOTE_CHARS"]

#: Longest file name a manifest may give [characters]; Linux allows 4096 bytes per path
#: and 255 per component.
MAX_NAME_CHARS = 1024
MAX_COMPONENT_CHARS = 255
#: Longest quotation of a value or of a file's text in a message [characters].
MAX_QUOTE_CHARS = 80


class PathProblem(Exception):
    """A file name that cannot be used; ``why`` says what is wrong with it."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


def one_line(text: str) -> str:
    """*text* with every control or other non-printable character escaped (``\\n``, ``\\x00``...)."""
    out = []
    for ch in str(text):
        if ch.isprintable() or ch == " ":
            out.append(ch)
        else:
            out.append(ch.encode("unicode_escape").decode("ascii"))
    return "".join(out)


def show(value, limit: int = MAX_QUOTE_CHARS) -> str:
    """A value as a message quotes it: its repr, printable, cut to *limit* characters."""
    text = one_line(repr(value))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _bad_character(name: str) -> str | None:
    for ch in name:
        if ch == "\x00":
            return "a NUL character"
        if unicodedata.category(ch) in ("Cc", "Cs"):
            return f"the control character {ch.encode('unicode_escape').decode('ascii')}"
    return None


def resolve_file(base: Path, name: str, allow_outside: bool) -> Path:
    """The absolute, symlink-free path of *name* (relative to *base*), checked.

    Raises :class:`PathProblem` for a name with a control character, a name or component
    too long for the file system, a symlink loop, a path outside *base* (unless
    *allow_outside*), or a file that does not exist or is not a regular file.
    """
    if not isinstance(name, str) or not name.strip():
        raise PathProblem("expected a file name")
    bad = _bad_character(name)
    if bad:
        raise PathProblem(f"the name holds {bad}; rename the file")
    if len(name) > MAX_NAME_CHARS or any(len(part.encode("utf-8", "replace")) > MAX_COMPONENT_CHARS
                                         for part in name.replace("\\", "/").split("/")):
        raise PathProblem(f"the name is too long for a file ({len(name)} characters; at most "
                          f"{MAX_COMPONENT_CHARS} bytes per folder or file name)")
    root = base.resolve()
    try:
        path = (root / name).resolve(strict=False)
    except RuntimeError:  # Python 3.11: "Symlink loop from ..."
        raise PathProblem("a symbolic link loop: the link points back at itself; name the file itself") from None
    except (OSError, ValueError) as exc:
        raise PathProblem(f"cannot resolve it ({one_line(type(exc).__name__)}: "
                          f"{one_line(getattr(exc, 'strerror', None) or exc)})") from None
    if not allow_outside and root != path and root not in path.parents:
        raise PathProblem("outside the manifest's folder (a manifest reads only the files below its own folder; "
                          "copy the file there, or build with allow_outside=True / "
                          "'labcalc measurements build --allow-outside' if you trust this manifest)")
    try:
        if not path.is_file():
            where = path if allow_outside else os.path.relpath(path, root)
            if path.is_dir():
                raise PathProblem(f"a folder, not a file (looked for {one_line(where)})")
            raise PathProblem(f"file not found (looked for {one_line(where)})")
    except OSError as exc:
        raise PathProblem(f"cannot open it ({one_line(exc.strerror or exc)})") from None
    return path
