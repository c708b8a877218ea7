"""Vectorised parsing of byte buffers (numpy), used by the readers of big files.

A chunk of a file is viewed as a ``uint8`` array and, at every byte offset, as an unaligned
little-endian ``uint64`` "window" of the next 8 bytes. Lines and separators are found with
``np.flatnonzero`` / ``np.searchsorted``; literals are compared 8 bytes at a time; numbers
are assembled with SWAR arithmetic (8 digits per 64-bit operation) on whole columns. Rows
the fast path cannot vouch for come back as "not ok" and the reader parses them one by one.
"""

from __future__ import annotations

import numpy as np

U64 = np.uint64
_ONES = U64(0xFFFFFFFFFFFFFFFF)
_ZEROS_ASCII = U64(0x3030303030303030)
_DEC = np.full(256, 255, dtype=np.uint8)
_DEC[48:58] = np.arange(10)
_HEX = _DEC.copy()
_HEX[97:103] = np.arange(10, 16)
_HEX[65:71] = np.arange(10, 16)
_POW10 = np.array([10.0**k for k in range(40)])
_POW10_U = np.array([10**k for k in range(20)], dtype=np.uint64)
# mask of the low k bytes, k = 0..8
_LOW = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [0xFFFFFFFFFFFFFFFF], dtype=np.uint64)
_FILL0 = np.array([int.from_bytes(b"0" * k + b"\0" * (8 - k), "little") for k in range(9)], dtype=np.uint64)

PAD = 24
NL, TAB, SPACE, EQ, COLON, DOT, LBRACK, RBRACK, MINUS, HASH = 10, 9, 32, 61, 58, 46, 91, 93, 45, 35
SLASH, LPAREN, RPAREN = 47, 40, 41
_NUMCHAR = np.zeros(256, dtype=bool)
_NUMCHAR[48:58] = True
_NUMCHAR[DOT] = True
_DIGIT = np.zeros(256, dtype=bool)
_DIGIT[48:58] = True


class Lines:
    """Line boundaries of a byte chunk (every line ends with a newline) and byte accessors."""

    def __init__(self, chunk: bytes, first_line: int, padded: bool = False):
        """*chunk* ends with a newline; with ``padded=True`` it is followed by PAD NUL bytes."""
        if padded:
            self.size = len(chunk) - PAD
        else:
            self.size = len(chunk)
            chunk = bytes(chunk) + b"\0" * PAD
        padded = chunk
        self.arr = np.frombuffer(padded, dtype=np.uint8)
        # the chunk as aligned little-endian 64-bit words: an unaligned 8-byte load is two
        # aligned loads and two shifts (see :meth:`word`)
        self.u64 = np.frombuffer(padded, dtype="<u8", count=len(padded) // 8)
        nl = np.flatnonzero(self.arr[: self.size] == NL)
        self.starts = np.empty(len(nl), dtype=np.int64)
        if len(nl):
            self.starts[0] = 0
            self.starts[1:] = nl[:-1] + 1
        ends = nl.astype(np.int64)
        # strip trailing whitespace (\r, spaces, tabs): a byte a round for every line at once,
        # then the few lines with a longer tail one by one (a line ending in 400 KB of spaces
        # would otherwise take 400,000 rounds over every line)
        for _ in range(8):
            if not len(ends):
                break
            prev = self.arr[np.maximum(ends - 1, 0)]
            strip = (ends > self.starts) & ((prev == 13) | (prev == SPACE) | (prev == TAB))
            if not strip.any():
                break
            ends = ends - strip
        else:
            prev = self.arr[np.maximum(ends - 1, 0)]
            for k in np.flatnonzero((ends > self.starts) & ((prev == 13) | (prev == SPACE) | (prev == TAB))):
                a = int(self.starts[k])
                ends[k] = a + len(padded[a:int(ends[k])].rstrip(b" \t\r"))
        self.ends = ends
        self.first_line = first_line
        self.next_line = first_line + len(nl)
        self._numbers = None
        self._pos = {}
        self._runs = None

    def __len__(self):
        return len(self.starts)

    @property
    def numbers(self) -> np.ndarray:
        """1-based line numbers of the lines of this chunk."""
        if self._numbers is None:
            self._numbers = self.first_line + np.arange(len(self.starts), dtype=np.int64)
        return self._numbers

    def byte(self, at: np.ndarray) -> np.ndarray:
        """Bytes at positions *at* (positions must lie in [-1, size + 8); -1 reads the padding)."""
        return self.arr[at]

    def word(self, at: np.ndarray) -> np.ndarray:
        """The 8 bytes at *at* as little-endian uint64 (first byte in the low bits); *at* in [-1, size + 8)."""
        base = at >> 3
        r = (at & 7).astype(np.uint64) * U64(8)
        # (hi << 1) << (63 - r) is hi << (64 - r) without the undefined shift by 64 when r == 0
        return (self.u64[base] >> r) | ((self.u64[base + 1] << U64(1)) << (U64(63) - r))

    def positions(self, byte: int) -> np.ndarray:
        """Sorted positions of *byte* in the chunk (cached)."""
        p = self._pos.get(byte)
        if p is None:
            p = np.flatnonzero(self.arr[: self.size] == byte)
            self._pos[byte] = p
        return p

    def number_runs(self) -> tuple[np.ndarray, np.ndarray]:
        """``(starts, ends)`` of the runs of digits and '.' in the chunk, in order (cached)."""
        if self._runs is None:
            d = np.diff(_NUMCHAR[self.arr[: self.size]].view(np.int8), prepend=np.int8(0), append=np.int8(0))
            rs, re_ = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
            # a run holds a digit: a lone '.' (the one of "[mov.avg]") is no number
            digit = _DIGIT[self.arr[rs]] | ((re_ - rs > 1) & _DIGIT[self.arr[rs + 1]])
            self._runs = (rs[digit], re_[digit])
        return self._runs

    def runs_in(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(index of its first run, number of runs)`` of each row (see :meth:`number_runs`)."""
        rs, _ = self.number_runs()
        first = np.searchsorted(rs, self.starts[rows])
        return first, np.searchsorted(rs, self.ends[rows]) - first

    def run(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(start, end)`` of runs *idx* (an index past the last run gives an empty span at the end)."""
        rs, re_ = self.number_runs()
        if not len(rs):
            z = np.full(len(idx), self.size, dtype=np.int64)
            return z, z
        k = np.minimum(idx, len(rs) - 1)
        past = idx >= len(rs)
        return np.where(past, self.size, rs[k]), np.where(past, self.size, re_[k])

    def literal(self, pos: np.ndarray, choices) -> tuple[np.ndarray, np.ndarray]:
        """``(matched, end)``: where one of the byte strings *choices* (the longest first)
        is at *pos*, and the position just after it (*pos* where none is)."""
        end = pos.copy()
        matched = np.zeros(len(pos), dtype=bool)
        for lit in sorted(choices, key=len, reverse=True):
            hit = ~matched & self.equals(pos, lit)
            end = np.where(hit, pos + len(lit), end)
            matched |= hit
        return matched, end

    def skip(self, pos: np.ndarray, ceil: np.ndarray) -> np.ndarray:
        """*pos* moved past spaces and tabs (not beyond *ceil*)."""
        return self.scan_fwd(pos, ceil, b" \t", limit=24)

    def count_in_lines(self, byte: int, rows: np.ndarray) -> np.ndarray:
        pos = self.positions(byte)
        return np.searchsorted(pos, self.ends[rows]) - np.searchsorted(pos, self.starts[rows])

    def first_at_or_after(self, byte: int, where: np.ndarray, ceil: np.ndarray) -> np.ndarray:
        """Position of the first *byte* at or after *where* and before *ceil*, else *ceil*."""
        pos = self.positions(byte)
        if not len(pos):
            return ceil.copy()
        idx = np.searchsorted(pos, where)
        cand = pos[np.minimum(idx, len(pos) - 1)]
        ok = (idx < len(pos)) & (cand < ceil)
        return np.where(ok, cand, ceil)

    def nth_positions(self, byte: int, rows: np.ndarray, k: int) -> np.ndarray:
        """``(n, k)`` positions of the first *k* occurrences of *byte* in each row (rows must hold >= k)."""
        pos = self.positions(byte)
        i0 = np.searchsorted(pos, self.starts[rows])
        return pos[i0[:, None] + np.arange(k)]

    def equals(self, at: np.ndarray, literal: bytes) -> np.ndarray:
        """True where the bytes at *at* spell *literal* (*at* in [-1, size + 8))."""
        ok = (at >= 0) & (at + len(literal) <= self.size)
        at = np.where(ok, at, 0)
        for k in range(0, len(literal), 8):
            piece = literal[k:k + 8]
            mask = _LOW[len(piece)]
            val = U64(int.from_bytes(piece, "little"))
            ok &= (self.word(at + k) & mask) == val
        return ok

    def scan_back(self, end: np.ndarray, floor: np.ndarray, allowed: bytes, limit: int = 32) -> np.ndarray:
        """Start of the run of *allowed* bytes that ends just before *end* (not below *floor*)."""
        allowed_arr = np.zeros(256, dtype=bool)
        allowed_arr[list(allowed)] = True
        start = end.copy()
        active = np.ones(len(end), dtype=bool)
        for _ in range(limit):
            cand = start - 1
            step = active & (cand >= floor) & allowed_arr[self.byte(cand)]
            if not step.any():
                break
            start = np.where(step, cand, start)
            active = step
        return start

    def scan_fwd(self, start: np.ndarray, ceil: np.ndarray, allowed: bytes, limit: int = 32) -> np.ndarray:
        """End (exclusive) of the run of *allowed* bytes that starts at *start* (not beyond *ceil*)."""
        allowed_arr = np.zeros(256, dtype=bool)
        allowed_arr[list(allowed)] = True
        end = start.copy()
        active = np.ones(len(start), dtype=bool)
        for _ in range(limit):
            step = active & (end < ceil) & allowed_arr[self.byte(end)]
            if not step.any():
                break
            end = np.where(step, end + 1, end)
            active = step
        return end

    def text(self, rows) -> list[str]:
        return [bytes(self.arr[self.starts[r]:self.ends[r]]).decode("utf-8", "replace") for r in rows]


def _swar_dec8(w: np.ndarray) -> np.ndarray:
    """Value of 8 ASCII digits packed little-endian (first digit in the low byte)."""
    v = w - _ZEROS_ASCII
    v = (v * U64(10)) + (v >> U64(8))
    v = ((v & U64(0x000000FF000000FF)) * U64(100 + (1000000 << 32))
         + ((v >> U64(16)) & U64(0x000000FF000000FF)) * U64(1 + (10000 << 32))) >> U64(32)
    return v


def _swar_hex8(w: np.ndarray) -> np.ndarray:
    """Value of 8 ASCII hex digits packed little-endian (first digit in the low byte)."""
    n = (w & U64(0x0F0F0F0F0F0F0F0F)) + ((w >> U64(6)) & U64(0x0101010101010101)) * U64(9)
    n = ((n << U64(4)) | (n >> U64(8))) & U64(0x00FF00FF00FF00FF)
    n = ((n << U64(8)) | (n >> U64(16))) & U64(0x0000FFFF0000FFFF)
    n = ((n << U64(16)) | (n >> U64(32))) & U64(0x00000000FFFFFFFF)
    return n


def _aligned8(L: Lines, start: np.ndarray, width: np.ndarray) -> np.ndarray:
    """Words holding spans of width <= 8 right-aligned and left-padded with ASCII '0'."""
    w = L.word(start)
    pad = (8 - width).astype(np.uint64)
    return np.where(width > 0, (w << (pad * U64(8))) | _FILL0[8 - width], _ZEROS_ASCII)


def _convert8(L: Lines, start: np.ndarray, width: np.ndarray, base: int):
    """``(value, ok)`` of spans of width <= 8."""
    w = _aligned8(L, start, width)
    if base == 10:
        # every byte is 0x30..0x39: high nibble 3, and low nibble + 6 does not carry
        ok = ((w & U64(0xF0F0F0F0F0F0F0F0)) == _ZEROS_ASCII) & (
            ((w + U64(0x0606060606060606)) & U64(0xF0F0F0F0F0F0F0F0)) == _ZEROS_ASCII)
        return _swar_dec8(w), ok
    # hex digits map to 0..15 and anything else to 255: no byte may have its high bit set
    vals = _HEX[w.view(np.uint8)].view("<u8")
    ok = (vals & U64(0x8080808080808080)) == 0
    return _swar_hex8(w), ok


def parse_uint(L: Lines, start: np.ndarray, end: np.ndarray, base: int = 10):
    """Unsigned integers of the spans ``[start, end)``; returns ``(uint64 values, ok)``."""
    width = end - start
    limit = 19 if base == 10 else 16
    ok = (width > 0) & (width <= limit)
    width = np.clip(width, 0, limit)
    wmax = int(width.max(initial=0))
    lo_w = np.minimum(width, 8)
    val, okp = _convert8(L, end - lo_w, lo_w, base)
    ok &= okp
    if wmax > 8:
        hi_w = width - lo_w
        mid_w = np.minimum(hi_w, 8)
        mid, okp = _convert8(L, end - lo_w - mid_w, mid_w, base)
        ok &= okp
        scale = _POW10_U[8] if base == 10 else U64(1 << 32)
        val = np.where(mid_w > 0, mid * scale + val, val)
        if wmax > 16:
            top_w = np.clip(hi_w - 8, 0, 8)
            top, okp = _convert8(L, start, top_w, base)
            ok &= okp
            val = np.where(top_w > 0, top * _POW10_U[16] + val, val)
    return val, ok


def parse_hex(L: Lines, start: np.ndarray, end: np.ndarray):
    """Hexadecimal integers with an optional ``0x`` prefix; returns ``(uint64, ok)``."""
    prefix = (end - start >= 3) & (L.byte(start) == 48) & (L.byte(start + 1) == 120)
    return parse_uint(L, start + 2 * prefix, end, base=16)


def parse_float(L: Lines, start: np.ndarray, end: np.ndarray, max_width: int = 32):
    """Decimal numbers ``[-]digits[.digits]``; returns ``(float64, ok)``."""
    neg = (end > start) & (L.byte(start) == MINUS)
    s = start + neg
    width = end - s
    wmax = int(min(width.max(initial=0), max_width))
    dot = width.copy()
    for j in range(wmax):
        inside = j < width  # only those rows read byte j: a shorter number may end the text
        hit = inside & (dot == width) & (L.byte(np.where(inside, s + j, s)) == DOT)
        dot = np.where(hit, j, dot)
    ip, ok1 = parse_uint(L, s, s + dot, 10)
    fstart = s + np.minimum(dot + 1, width)
    flen = end - fstart
    has_frac = flen > 0
    fp, ok2 = parse_uint(L, fstart, end, 10)
    ok = (ok1 | ((dot == 0) & has_frac)) & (ok2 | ~has_frac) & (width > 0) & (width <= max_width)
    ok &= ~((dot < width) & ~has_frac & (dot == 0))
    # Correctly rounded, as float(text): the digits without the point as one integer M and the
    # value M / 10**k, both exact in binary when M < 2**53 and k <= 22, so the one division
    # rounds once (ip + fp / 10**k rounds twice: '1.91' gave 1.9100000000000001). The few
    # numbers with more digits are converted by float() itself.
    flen = np.where(has_frac, flen, 0)
    digits = dot + flen
    short = ok & (digits <= 19) & (flen <= 19)
    k = np.where(short, flen, 0)
    mant = np.where(short, ip, U64(0)) * _POW10_U[k] + np.where(short & has_frac, fp, U64(0))
    exact = short & (mant < U64(1 << 53))
    val = mant.astype(np.float64) / _POW10[k]
    for i in np.flatnonzero(ok & ~exact):
        val[i] = float(L.arr[s[i]:end[i]].tobytes())
    return np.where(neg, -val, val), ok


def parse_decimal(L: Lines, start: np.ndarray, end: np.ndarray, max_int: int = 15, max_frac: int = 15):
    """Decimal numbers ``digits[.digits]`` read exactly as Python's ``float(text)`` does;
    returns ``(float64, ok)``.

    The digits without the point form an integer M below 2**53 (15 digits at most) and the
    value is M / 10**k: both exact in binary, so the quotient is the correctly rounded
    value, as ``float`` gives it (unlike ``ip + fp / 10**k``, one rounding too many).
    Longer numbers are not ok (their readers take them line by line), nor numbers with more
    than *max_int* digits before the point or *max_frac* after it (a reader's pattern limits).
    """
    width = end - start
    ok = (width > 0) & (width <= 16)
    dot = L.first_at_or_after(DOT, start, end)
    has_dot = dot < end
    ip, ok1 = parse_uint(L, start, dot, 10)
    frac_start = np.where(has_dot, dot + 1, end)
    flen = end - frac_start
    fp, ok2 = parse_uint(L, frac_start, end, 10)
    ok &= ok1 & (ok2 | (flen == 0)) & ~(has_dot & (flen == 0)) & (dot > start)
    # a second point makes the fraction's digits fail in parse_uint
    digits = (dot - start) + flen
    ok &= (digits <= 15) & (dot - start <= max_int) & (flen <= max_frac)
    mant = ip * _POW10_U[np.clip(flen, 0, 19)] + np.where(flen > 0, fp, np.uint64(0))
    val = mant.astype(np.float64) / _POW10[np.clip(flen, 0, 39)]
    return val, ok


def span_codes(L: Lines, start: np.ndarray, end: np.ndarray, table: dict[str, int]) -> np.ndarray:
    """Integer codes of the string spans, extending *table* (string -> code) as needed."""
    n = len(start)
    if n == 0:
        return np.zeros(0, dtype=np.int32)
    width = np.maximum(end - start, 0)
    h1 = width.astype(np.uint64) * U64(0x9E3779B97F4A7C15)
    h2 = width.astype(np.uint64) + U64(0x632BE59BD9B4E019)
    wmax = int(width.max(initial=0))
    for k in range(0, wmax, 8):
        rem = np.clip(width - k, 0, 8)
        # rows narrower than wmax would read past their end (and past the chunk for the last
        # lines): clamp the position; the mask _LOW[0] == 0 discards what is read there
        w = L.word(np.minimum(start + k, start + width)) & _LOW[rem]
        h1 = (h1 ^ w) * U64(0x100000001B3)
        h1 ^= h1 >> U64(29)
        h2 = (h2 + w) * U64(0xBF58476D1CE4E5B9)
        h2 ^= h2 >> U64(31)
    key = h1 ^ (h2 * U64(0x94D049BB133111EB))
    uniq, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    local = np.empty(len(uniq), dtype=np.int32)
    for k, row in enumerate(first):
        s = bytes(L.arr[start[row]:end[row]]).decode("utf-8", "replace")
        code = table.get(s)
        if code is None:
            code = len(table)
            table[s] = code
        local[k] = code
    return local[inverse.reshape(-1)]


def fast_rows(L: Lines, fast, table: dict[str, int]):
    """A chunk's non-empty lines through a reader's fast path ``fast(L, rows, table) -> (rows
    read, columns)``; returns ``(first, part, rest)``: the first non-empty line as ``(line
    number, text)`` (None when every line is empty), ``(line numbers, columns)`` of the rows
    the fast path read (None when it read none) and the rows left for the line-by-line parser."""
    rows = np.flatnonzero(L.ends > L.starts)
    if not len(rows):
        return None, None, rows
    first = (int(L.numbers[rows[0]]), L.text([rows[0]])[0])
    got, cols = fast(L, rows, table)
    if not len(got):
        return first, None, rows
    return first, (L.numbers[got], cols), np.setdiff1d(rows, got, assume_unique=True)


def map_chunks(path, func, *, chunk_bytes: int = 1 << 23):
    """Apply ``func(lines)`` to every chunk of *path*; yield ``(line_offset, result)`` in order.

    *func* receives a :class:`Lines` whose line numbers start at 1 within the chunk; add
    *line_offset* to get file line numbers. One chunk (8 MiB by default) is in memory at a
    time. (Processing chunks in two threads was measured slower: the numpy calls are too
    short for the GIL to be released profitably.)
    """
    from ._common import iter_byte_chunks

    offset = 0
    for chunk in iter_byte_chunks(path, chunk_bytes=chunk_bytes, pad=PAD):
        L = Lines(chunk, 1, padded=True)
        n = L.next_line - 1
        res = func(L)
        del L, chunk
        yield offset, res
        offset += n


def read_chunks(path, func, rep, table: dict[str, int]):
    """:func:`map_chunks` with what every vectorised reader does for each chunk; yields
    ``(line_offset, result, remap)``.

    The chunk's malformed lines (``result["bad"]``) and first non-empty line
    (``result["first"]``) are reported to *rep* with file line numbers, and its string
    codes (``result["table"]``) are numbered into the file's *table*: ``remap[code]`` is
    a chunk code's number in it.
    """
    for offset, res in map_chunks(path, func):
        remap = np.empty(len(res["table"]), dtype=np.int32)
        for text, code in res["table"].items():
            remap[code] = table.setdefault(text, len(table))
        if res["bad"]:
            rep.bad_many([ln + offset for ln, _ in res["bad"]], [t for _, t in res["bad"]])
        if res["first"] is not None:
            rep.content(res["first"][0] + offset, res["first"][1])
        yield offset, res, remap


def categoricals(code_arrays: list, table: dict[str, int]) -> list:
    """pandas Categoricals sharing one category list, ordered by first appearance, unused dropped."""
    import pandas as pd

    n = len(table)
    first = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    for codes in code_arrays:
        if len(codes):
            u, idx = np.unique(codes, return_index=True)
            first[u] = np.minimum(first[u], idx)
    used = np.flatnonzero(first < np.iinfo(np.int64).max)
    used = used[np.argsort(first[used], kind="stable")]
    names = np.empty(n, dtype=object)
    for s, code in table.items():
        names[code] = s
    remap = np.full(max(n, 1), -1, dtype=np.int32)
    remap[used] = np.arange(len(used), dtype=np.int32)
    cats = pd.Index(list(names[used]), dtype="str")
    return [pd.Categorical.from_codes(remap[np.asarray(c, dtype=np.int64)] if len(c) else np.zeros(0, np.int32),
                                      categories=cats) for c in code_arrays]
