"""Slot efficiency of a slotted (SYN) schedule under packetisation (seed 002, Sec. II-A, III-F).

A synchronous scheduler (Fastpass-like SYN, seed 002 Sec. II-A) slots time by a fixed packet
transmission time -- 1500 B at the IP layer in the seed's evaluation (Sec. III-C) -- and sends
at most one packet per matched pair and slot.  A packet shorter than the slot leaves the rest of
the slot idle ("partial filling of the transmission timeslots", Sec. II-A), so a saturated link
carries

    efficiency = E[L] / (slot x E[ceil(L / slot)])

of its capacity, ``L`` the packet length; with no packet longer than the slot (the seed's
mixes) this is ``E[L] / slot``, the digest's model (Sec. 3.3, T-A2).  A packet longer than the
slot is fragmented over ``ceil(L / slot)`` slots (the seed mentions fragmentation, Sec. II-A;
the formula for it is ours).  Exact with :class:`fractions.Fraction`.

The seed's packet mixes (:data:`PACKET_MIXES`, lengths in bytes at the IP layer):

* ``fixed-1500``: every packet 1500 B (Sec. III-C item 1): efficiency 1;
* ``bimodal``: 40 B with probability 0.4, 1500 B with 0.6 ("Hadoop-like", Sec. III-C item 2):
  ``E[L] = 916`` B, efficiency ``916/1500``; SYN saturates at a byte load of about 0.61, which
  is why its FCT "diverges by more than an order of magnitude" (Sec. III-F.2, Fig. 6a);
* ``mss-ack``: the adversarial pattern "one MSS sized packet followed by one ACK packet"
  (Sec. III-F.2), which "may reduce the throughput of the SYN system down to approximately
  50%": ``(1500 + 40) / (2 x 1500) = 1540/3000``, about 0.513.

The FBW mix (Facebook web servers, Sec. III-C item 3: 15 % of packets are 1500 B, median about
150 B) is not given as a distribution in the seed, so it is not here.

References
----------
G. Sviridov, A. Bianco, P. Giaccone, "To sync or not to sync", IEEE Globecom 2018, Sec. II-A,
III-C, III-F.  Digest ``../shared/reference/seeds-000-002.md`` Sec. 3.3 and T-A2.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping

from .exceptions import InvalidParameterError

__all__ = ["PACKET_MIXES", "SYN_SLOT_BYTES", "slot_efficiency", "mean_packet_length"]

#: The SYN slot of the seed's evaluation: the transmission time of 1500 B at the IP layer.
SYN_SLOT_BYTES = 1500

#: name -> {packet length in bytes: probability} (Fractions summing to 1).
PACKET_MIXES: dict[str, dict[int, Fraction]] = {
    "fixed-1500": {1500: Fraction(1)},
    "bimodal": {40: Fraction(2, 5), 1500: Fraction(3, 5)},
    "mss-ack": {1500: Fraction(1, 2), 40: Fraction(1, 2)},
}


def _mix(mix) -> dict[int, Fraction]:
    if isinstance(mix, str):
        if mix not in PACKET_MIXES:
            raise InvalidParameterError(f"packet mix must be one of {', '.join(PACKET_MIXES)} "
                                        f"or a {{length: probability}} mapping, got {mix!r}")
        return PACKET_MIXES[mix]
    if not isinstance(mix, Mapping) or not mix:
        raise InvalidParameterError("a packet mix is a non-empty {length: probability} mapping")
    out = {}
    for length, prob in mix.items():
        if isinstance(length, bool) or not isinstance(length, int) or length <= 0:
            raise InvalidParameterError(f"packet length must be a positive integer number of "
                                        f"bytes, got {length!r}")
        try:
            q = Fraction(prob)
        except (TypeError, ValueError):
            raise InvalidParameterError(f"probability of {length} B must be a number, got "
                                        f"{prob!r}") from None
        if q < 0:
            raise InvalidParameterError(f"probability of {length} B must be >= 0, got {prob!r}")
        out[length] = q
    if sum(out.values()) != 1:
        raise InvalidParameterError(f"the probabilities must sum to 1, got "
                                    f"{sum(out.values())}")
    return out


def mean_packet_length(mix) -> Fraction:
    """``E[L]`` in bytes of a packet mix (a name of :data:`PACKET_MIXES` or a mapping).

    Examples
    --------
    >>> mean_packet_length("bimodal")
    Fraction(916, 1)
    """
    return sum((length * q for length, q in _mix(mix).items()), Fraction(0))


def slot_efficiency(mix, slot: int = SYN_SLOT_BYTES) -> Fraction:
    """Fraction of a saturated link's capacity a slotted schedule uses, one packet per slot.

    Parameters
    ----------
    mix : str or mapping
        A name of :data:`PACKET_MIXES` or ``{length in bytes: probability}``.
    slot : int
        Bytes one slot carries (default 1500, the seed's slot).

    Returns
    -------
    Fraction
        ``E[L] / (slot E[ceil(L / slot)])`` (``E[L] / slot`` when no packet exceeds the slot).

    Examples
    --------
    >>> slot_efficiency("bimodal") == Fraction(916, 1500)
    True
    >>> slot_efficiency("mss-ack") == Fraction(1540, 3000), float(slot_efficiency("mss-ack"))
    (True, 0.5133333333333333)
    >>> slot_efficiency("fixed-1500")
    Fraction(1, 1)
    """
    if isinstance(slot, bool) or not isinstance(slot, int) or slot <= 0:
        raise InvalidParameterError(f"slot must be a positive integer number of bytes, got "
                                    f"{slot!r}")
    m = _mix(mix)
    slots = sum((-(-length // slot) * q for length, q in m.items()), Fraction(0))
    return mean_packet_length(m) / (slot * slots)
