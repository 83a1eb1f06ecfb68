"""A compiled scan of a version 1 instance document's flow lists, without one Python object per
flow (:func:`coflowopt.formats.instance_json.read_instance_json` on large files).

``json`` makes a list and three numbers per flow (5.2 million lists on Custom-4000, the 74 MB
file of issue 17), and the reader then walks them again to build the columns: 5.8 s of CPU of
the 30 s target, where the bytes themselves take well under a second to scan.  :func:`scan_v1`
reads the document's bytes once, follows its nesting (strings, with their escapes, skipped
whole) and, for each value of a key ``"flows"`` in an object of the top-level ``"coflows"``
array, reads the list ``[[ingress, egress, size], ...]`` straight into three columns.  The rest
of the document (the *skeleton*: every byte but those lists) is left to ``json``.

The scan accepts only what it is sure of and says "unusual" otherwise, and then the caller
reads the file with ``json`` as before; so it never decides a rule.  It accepts a flow list
only if it is, byte for byte, JSON's grammar (RFC 8259, Sec. 2 and 6) restricted to

    list = '[' ws flow (ws ',' ws flow)* ws ']'
    flow = '[' ws int ws ',' ws int ws ',' ws number ws ']'

(``ws`` JSON's four blanks) where each port index is an integer of at most 18 digits that is
not negative (``-0`` is 0, as ``json`` reads it) and a size is either an integer of magnitude
at most 2^53 (exact in float64) or a number with a fraction or an exponent, whose text is
returned for Python's ``float`` (the conversion ``json`` itself makes).  The values are then
those ``json`` would give.  Why that restricted grammar is safe: a list the scan accepts is one
whole JSON value, and the caller puts ``[]`` in its place; if that skeleton is valid JSON, its
parse is the document's parse with those values replaced (JSON's grammar is context free and
the scan tracks strings exactly as JSON delimits them), and if it is not, neither is the
document and ``json`` reports the error on the whole file.
"""

from __future__ import annotations

import numpy as np

from ..rates._jit import njit

__all__ = ["scan_v1", "OK"]

#: :func:`scan_v1`'s status when the document was read; anything else means "unusual"
OK = 0
_UNUSUAL_NESTING, _UNUSUAL_FLOWS, _UNUSUAL_STRING, _UNUSUAL_TOP, _FULL = 1, 2, 3, 4, 5
_MAX_DEPTH = 64
_EXACT = 2 ** 53

_QUOTE, _BACKSLASH, _LBRACE, _RBRACE, _LBRACKET, _RBRACKET = 34, 92, 123, 125, 91, 93
_COMMA, _COLON, _MINUS, _PLUS, _DOT, _ZERO, _NINE, _LOWER_E, _UPPER_E = \
    44, 58, 45, 43, 46, 48, 57, 101, 69
_VALUE = 1  # "a value just ended", for the last significant byte


@njit(cache=True, borrowed=True)
def _blank(c):
    return c == 32 or c == 9 or c == 10 or c == 13


@njit(cache=True, borrowed=True)
def _skip_blanks(buf, i, n):
    while i < n and _blank(buf[i]):
        i += 1
    return i


@njit(cache=True, borrowed=True)
def _digits(buf, i, n):
    """The end of the run of decimal digits from ``i``."""
    while i < n and _ZERO <= buf[i] <= _NINE:
        i += 1
    return i


@njit(cache=True, borrowed=True)
def _number(buf, i, n):
    """A JSON number from ``i``: ``(end, value, is_integer)``, ``end = -1`` if the text is not
    one.  ``value`` is the integer's value when ``is_integer`` (an integer of more than 18
    digits gives ``end = -2``: unusual, too long for int64); a number with a fraction or an
    exponent has value 0 (its text is converted by the caller)."""
    neg = False
    if i < n and buf[i] == _MINUS:
        neg = True
        i += 1
    if i >= n or not (_ZERO <= buf[i] <= _NINE):
        return -1, 0, False
    j = i + 1 if buf[i] == _ZERO else _digits(buf, i, n)
    is_int = True
    if j < n and buf[j] == _DOT:
        k = _digits(buf, j + 1, n)
        if k == j + 1:
            return -1, 0, False
        j = k
        is_int = False
    if j < n and (buf[j] == _LOWER_E or buf[j] == _UPPER_E):
        j += 1
        if j < n and (buf[j] == _PLUS or buf[j] == _MINUS):
            j += 1
        k = _digits(buf, j, n)
        if k == j:
            return -1, 0, False
        j = k
        is_int = False
    if j < n and _ZERO <= buf[j] <= _NINE:  # a leading zero ("01"): not JSON
        return -1, 0, False
    if not is_int:
        return j, 0, False
    if j - i > 18:
        return -2, 0, True
    v = 0
    for q in range(i, j):
        v = v * 10 + (int(buf[q]) - _ZERO)
    return j, -v if neg else v, True


@njit(cache=True, borrowed=True)
def _flow_list(buf, i, n, src, dst, size, nf, ft_flow, ft_lo, ft_hi, nft):
    """The flow list that opens at ``buf[i] == '['``: ``(end, nf, nft)`` with the flows
    appended at ``nf`` and the non-integer sizes' texts at ``nft``; ``end < 0`` if the list is
    not of the accepted form (module docstring)."""
    i = _skip_blanks(buf, i + 1, n)
    while True:
        if i >= n or buf[i] != _LBRACKET or nf >= src.shape[0]:
            return -1, nf, nft
        for col in range(3):
            i = _skip_blanks(buf, i + 1 if col == 0 else i, n)
            j, v, is_int = _number(buf, i, n)
            if j < 0:
                return -1, nf, nft
            if col < 2:
                if not is_int or v < 0:
                    return -1, nf, nft
                if col == 0:
                    src[nf] = v
                else:
                    dst[nf] = v
            elif is_int:
                if v > _EXACT or v < -_EXACT:
                    return -1, nf, nft
                size[nf] = float(v)
            else:
                if nft >= ft_flow.shape[0]:
                    return -1, nf, nft
                size[nf] = 0.0
                ft_flow[nft] = nf
                ft_lo[nft] = i
                ft_hi[nft] = j
                nft += 1
            i = _skip_blanks(buf, j, n)
            if i >= n or buf[i] != (_RBRACKET if col == 2 else _COMMA):
                return -1, nf, nft
            i += 1
        nf += 1
        i = _skip_blanks(buf, i, n)
        if i >= n:
            return -1, nf, nft
        if buf[i] == _RBRACKET:
            return i + 1, nf, nft
        if buf[i] != _COMMA:
            return -1, nf, nft
        i = _skip_blanks(buf, i + 1, n)


@njit(cache=True, borrowed=True)
def _key_is(buf, lo, hi, word):
    if hi - lo != word.shape[0]:
        return False
    for q in range(word.shape[0]):
        if buf[lo + q] != word[q]:
            return False
    return True


@njit(cache=True)
def scan_v1(buf, coflows_word, flows_word, src, dst, size, span_lo, span_hi, span_flows,
            ft_flow, ft_lo, ft_hi):
    """Scan a document's bytes (module docstring).

    Parameters
    ----------
    buf : uint8 array
        The file's bytes.
    coflows_word, flows_word : uint8 arrays
        The bytes of the two keys, ``coflows`` and ``flows``.
    src, dst, size, span_lo, span_hi, span_flows, ft_flow, ft_lo, ft_hi : arrays
        Filled: the flows' columns (int64, int64, float64; a non-integer size is 0 here and
        its text is ``buf[ft_lo[t]:ft_hi[t]]`` for flow ``ft_flow[t]``), and for each flow
        list the bytes ``[span_lo, span_hi)`` it occupies and its number of flows.  Their
        lengths bound what can be read ("unusual" when exceeded).

    Returns
    -------
    status, lists, flows, texts : int
        ``status`` :data:`OK` or a positive "unusual" code; the number of flow lists, of
        flows and of non-integer sizes read.

    Examples
    --------
    >>> doc = b'{"coflows": [{"id": "a", "flows": [[0, 1, 2], [1, 0, 2.5e0]]}]}'
    >>> buf = np.frombuffer(doc, dtype=np.uint8)
    >>> i64 = np.zeros(4, np.int64)
    >>> cols = (np.zeros(4, np.int64), np.zeros(4, np.int64), np.zeros(4), i64.copy(),
    ...         i64.copy(), i64.copy(), i64.copy(), i64.copy(), i64.copy())
    >>> w = [np.frombuffer(k, dtype=np.uint8) for k in (b"coflows", b"flows")]
    >>> scan_v1.py_func(buf, w[0], w[1], *cols)
    (0, 1, 2, 1)
    >>> doc[cols[3][0]:cols[4][0]], int(cols[5][0]), doc[cols[7][0]:cols[8][0]]
    (b'[[0, 1, 2], [1, 0, 2.5e0]]', 2, b'2.5e0')
    """
    n = buf.shape[0]
    kind = np.zeros(_MAX_DEPTH, dtype=np.int8)        # 1 object, 2 array
    is_coflows = np.zeros(_MAX_DEPTH, dtype=np.bool_)  # the top-level "coflows" array
    key_lo = np.zeros(_MAX_DEPTH, dtype=np.int64)
    key_hi = np.zeros(_MAX_DEPTH, dtype=np.int64)
    depth = 0
    prev = 0
    nspan = 0
    nf = 0
    nft = 0
    i = _skip_blanks(buf, 0, n)
    if i >= n or buf[i] != _LBRACE:
        return _UNUSUAL_TOP, 0, 0, 0
    while i < n:
        c = buf[i]
        if _blank(c):
            i += 1
        elif c == _QUOTE:
            j = i + 1
            while j < n and buf[j] != _QUOTE:
                j += 2 if buf[j] == _BACKSLASH else 1
            if j >= n:
                return _UNUSUAL_STRING, nspan, nf, nft
            if depth > 0 and kind[depth - 1] == 1 and (prev == _LBRACE or prev == _COMMA):
                key_lo[depth - 1] = i + 1
                key_hi[depth - 1] = j
            prev = _VALUE
            i = j + 1
        elif c == _LBRACE or c == _LBRACKET:
            if depth == 0 and prev != 0:
                return _UNUSUAL_TOP, nspan, nf, nft  # a second top-level value: json's error
            at_key = prev == _COLON and depth > 0 and kind[depth - 1] == 1
            if (c == _LBRACKET and at_key and depth == 3 and kind[1] == 2 and is_coflows[1]
                    and _key_is(buf, key_lo[2], key_hi[2], flows_word)):
                if nspan >= span_lo.shape[0]:
                    return _FULL, nspan, nf, nft
                end, nf2, nft = _flow_list(buf, i, n, src, dst, size, nf, ft_flow, ft_lo, ft_hi,
                                           nft)
                if end < 0:
                    return _UNUSUAL_FLOWS, nspan, nf, nft
                span_lo[nspan] = i
                span_hi[nspan] = end
                span_flows[nspan] = nf2 - nf
                nspan += 1
                nf = nf2
                prev = _VALUE
                i = end
                continue
            if depth >= _MAX_DEPTH:
                return _UNUSUAL_NESTING, nspan, nf, nft
            kind[depth] = 1 if c == _LBRACE else 2
            is_coflows[depth] = (c == _LBRACKET and at_key and depth == 1
                                 and _key_is(buf, key_lo[0], key_hi[0], coflows_word))
            key_lo[depth] = 0
            key_hi[depth] = 0
            depth += 1
            prev = c
            i += 1
        elif c == _RBRACE or c == _RBRACKET:
            if depth == 0:
                return _UNUSUAL_NESTING, nspan, nf, nft
            depth -= 1
            prev = _VALUE
            i += 1
        elif c == _COMMA or c == _COLON:
            prev = c
            i += 1
        else:  # a byte of a number or of true / false / null (json checks them)
            prev = _VALUE
            i += 1
    return OK, nspan, nf, nft
