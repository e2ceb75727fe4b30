"""The exact dynamic program over run positions (after van Rijn, Takes & Vis).

Positions ``1..14`` are the ranks in run order: ``1`` the low ace, ``2..13`` the ranks,
``14`` the high ace. Sweeping them left to right, every unit of the face at ``(p, suit)``
either extends an open run of its suit, starts a new run, or joins a set of rank ``p``.

State between positions, per suit: how many open runs have length 1, 2 and >= 3
(``c1, c2, c3``; a run needs no more than 3 to be closable). Runs of length 1 or 2 must be
extended; a run of length >= 3 may close. Closing a long run while starting a new one in
the same suit is never better than extending it, so it is not tried. Plus ``t``, the
wildcards placed so far (released table jokers first, then hand jokers). When aces are
both low and high, the aces of each suit set aside at the low ace to finish a run Q-K-A
at the high ace are carried in the value's tag (see ``run``).

At one position the units a suit sends to sets (``x`` per suit) and the wildcards put
into sets (``w``) can form sets exactly when some ``k`` has ``max x <= k`` and
``3k <= sum x + w <= 4k`` (deal the units round-robin by suit into ``k`` sets).

The value of a state is, per number of hand cards played so far ``n``, the best points;
every real card of one position has the same points, so a transition adds ``(dn,
dn * points)``. Back-pointers per ``(state, n)`` rebuild any optimum.
"""

from __future__ import annotations

from dataclasses import dataclass

from carousel_env.solver.prepare import Variant

RANK_POINTS = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 1)  # by position; 14 is the high ace

_BITS = 3
_MASK = 7

# Cached per-suit transition lists. Keys are small tuples of counts, so the number of
# distinct keys is bounded in practice; the cache is still cleared when it grows too big.
_OPTION_CACHE: dict[tuple, tuple] = {}
_OPTION_CACHE_LIMIT = 200_000
_SET_FEASIBLE: dict[tuple[int, int, int], bool] = {}


def face_at(position: int, suit: int) -> int:
    return ((position - 1) % 13) * 4 + suit


def sets_feasible(total_x: int, max_x: int, wild: int) -> bool:
    key = (total_x, max_x, wild)
    found = _SET_FEASIBLE.get(key)
    if found is None:
        total = total_x + wild
        found = total == 0 or any(3 * k <= total <= 4 * k for k in range(max(max_x, 1), total // 3 + 1))
        if len(_SET_FEASIBLE) < 100_000:
            _SET_FEASIBLE[key] = found
    return found


def suit_options(
    st: int, mt: int, forced: int, hand: int, wmax: int, nxt1: int, nxt2: int, set_ok: bool, defer_max: int
) -> tuple:
    """Transitions of one suit at one position.

    Each is ``(new_state, x, dn, w, k3, b, d)``: ``x`` units to sets (real units only),
    ``dn`` hand cards played, ``w`` wildcards put into runs here, ``k3`` long runs extended,
    ``b`` runs started, ``d`` aces set aside for the high end.
    """
    key = (st, mt, forced, hand, wmax, nxt1, nxt2, set_ok, defer_max)
    found = _OPTION_CACHE.get(key)
    if found is not None:
        return found
    c1 = st & _MASK
    c2 = (st >> _BITS) & _MASK
    c3 = (st >> (2 * _BITS)) & _MASK
    need = c1 + c2
    out = []
    seen = set()
    for u in range(mt + forced, mt + hand + 1):
        dn = u - mt
        for d in range(min(u, defer_max) + 1):
            low = u - d
            for w in range(wmax + 1):
                total = low + w
                if total < need:
                    continue
                rest = total - need
                for k3 in range(min(c3, rest) + 1):
                    bmax = rest - k3 if k3 == c3 else 0
                    for b in range(bmax + 1):
                        x = rest - k3 - b
                        if x and (not set_ok or x > low):
                            continue
                        if b + c1 > nxt1 or b > nxt2:
                            continue
                        n3 = min(c2 + k3, nxt1 - b - c1)
                        new = b | (c1 << _BITS) | (n3 << (2 * _BITS))
                        sig = (new, x, dn, w, d)
                        if sig in seen:
                            continue
                        seen.add(sig)
                        out.append((new, x, dn, w, k3, b, d))
    result = tuple(out)
    if len(_OPTION_CACHE) >= _OPTION_CACHE_LIMIT:
        _OPTION_CACHE.clear()
    _OPTION_CACHE[key] = result
    return result


@dataclass
class Layout:
    """Per-position inputs of one DP run (``positions`` in sweep order)."""

    positions: list[int]
    mt: dict[int, list[int]]
    forced: dict[int, list[int]]
    hand: dict[int, list[int]]
    avail: dict[int, list[int]]
    set_ok: dict[int, bool]
    defer: dict[int, list[int]]  # at the low ace: how many aces per suit may be set aside
    wild: int
    wild_mandatory: int
    wild_optional: int


def layout(var: Variant, hand: tuple[int, ...], ace_low: bool, ace_high: bool) -> Layout:
    both = ace_low and ace_high
    first = 1 if ace_low else 2
    last = 14 if ace_high else 13
    positions = list(range(first, last + 1))
    mt: dict[int, list[int]] = {}
    fo: dict[int, list[int]] = {}
    hd: dict[int, list[int]] = {}
    real: dict[int, list[int]] = {p: [0, 0, 0, 0] for p in range(-1, 17)}
    for p in positions:
        if p == 14 and both:
            # the high ace's units are the aces set aside at position 1 (they live in the state)
            mt[p], fo[p], hd[p] = [0] * 4, [0] * 4, [0] * 4
            real[p] = [var.mandatory[s] + hand[s] for s in range(4)]
            continue
        faces = [face_at(p, s) for s in range(4)]
        mt[p] = [var.mandatory[f] for f in faces]
        fo[p] = [var.forced[f] for f in faces]
        hd[p] = [hand[f] for f in faces]
        real[p] = [mt[p][s] + hd[p][s] for s in range(4)]
    wild = var.wild_mandatory + var.wild_optional
    avail: dict[int, list[int]] = {}
    for p in range(-1, 17):
        if p < first or p > last:
            avail[p] = [0, 0, 0, 0]
            continue
        row = []
        for s in range(4):
            near = wild >= 3 or any(real[q][s] for q in range(p - 2, p + 3))
            row.append(real[p][s] + (wild if near else 0))
        avail[p] = row
    set_ok: dict[int, bool] = {}
    for p in positions:
        if p == 14 and both:
            set_ok[p] = False  # sets of aces are formed at the low ace
        else:
            set_ok[p] = sum(1 for s in range(4) if real[p][s]) + wild >= 3
    defer: dict[int, list[int]] = {p: [0, 0, 0, 0] for p in positions}
    if both:
        defer[1] = [real[1][s] if (avail[12][s] and avail[13][s]) else 0 for s in range(4)]
    return Layout(positions, mt, fo, hd, avail, set_ok, defer, wild, var.wild_mandatory, var.wild_optional)


Key = tuple[int, int, int, int, int]
Choice = tuple[tuple[tuple[int, ...], ...], int]

# A value's tag packs the hand cards played so far (low 6 bits) with the aces set aside
# for the high end (3 bits per suit above). The aces set aside do not change which
# transitions exist until the high ace, so they live in the value, not in the state: the
# transitions of a state are enumerated once for all of its tags.
_N_BITS = 6
_N_MASK = (1 << _N_BITS) - 1


def _transitions(key: Key, wild: int, mt, fo, hd, nxt1, nxt2, set_ok: bool, defer) -> dict:
    """``{(new key, dn, aside code): choice}`` for one state at one position."""
    t = key[4]
    wleft = wild - t
    combos: dict[tuple, tuple] = {((), 0, 0, 0, 0, 0): ()}
    for s in range(4):
        opts = suit_options(key[s], mt[s], fo[s], hd[s], wleft, nxt1[s], nxt2[s], set_ok, defer[s])
        if not opts:
            return {}
        shift = 3 * s
        nxt: dict[tuple, tuple] = {}
        for (sts, tx, mx, ws, dn, dc), picked in combos.items():
            for opt in opts:
                w = ws + opt[3]
                if w > wleft:
                    continue
                x = opt[1]
                sig = ((*sts, opt[0]), tx + x, mx if mx >= x else x, w, dn + opt[2], dc | (opt[6] << shift))
                if sig not in nxt:
                    nxt[sig] = (*picked, opt)
        combos = nxt
    trans: dict[tuple, Choice] = {}
    for (sts, tx, mx, ws, dn, dc), picked in combos.items():
        for wset in range(wleft - ws + 1):
            if wset and not set_ok:
                break
            if sets_feasible(tx, mx, wset):
                sig = ((*sts, t + ws + wset), dn, dc)
                if sig not in trans:
                    trans[sig] = (picked, wset)
    return trans


def _work(lay: Layout, key: Key, vals: dict, p: int, last_ace: bool) -> list:
    """``[(values, transitions, tag bits to clear)]`` for one state at position ``p``."""
    nxt1 = lay.avail[p + 1]
    nxt2 = lay.avail[p + 2]
    if not last_ace:
        trans = _transitions(key, lay.wild, lay.mt[p], lay.forced[p], lay.hand[p], nxt1, nxt2, lay.set_ok[p],
                             lay.defer[p])
        return [(vals, trans, 0)]
    # at the high ace the aces set aside (in the tag) are the mandatory, already scored units
    groups: dict[int, dict[int, object]] = {}
    for tag, value in vals.items():
        groups.setdefault(tag >> _N_BITS, {})[tag] = value
    zero4 = (0, 0, 0, 0)
    return [
        (sub, _transitions(key, lay.wild, [(code >> (3 * s)) & 7 for s in range(4)], zero4, zero4, nxt1, nxt2, False,
                           zero4), code << _N_BITS)
        for code, sub in groups.items()
    ]


def run_scalar(lay: Layout) -> dict[int, tuple[int, int]]:
    """Best points and best cards (each maximised on its own) per ``t`` over completed tables.

    The same sweep as :func:`run` without the cards dimension: a value is the pair
    ``(max points, max cards)``; both are sums over positions, so each pair entry is an
    exact maximum of its own objective. ``n`` here counts real hand cards only.
    """
    both_aces = 1 in lay.positions and 14 in lay.positions
    layer: dict[Key, dict[int, tuple[int, int]]] = {(0, 0, 0, 0, 0): {0: (0, 0)}}
    for p in lay.positions:
        rp = RANK_POINTS[p]
        last_ace = p == 14 and both_aces
        new_layer: dict[Key, dict[int, tuple[int, int]]] = {}
        for key, vals in layer.items():
            for sub, trans, clear in _work(lay, key, vals, p, last_ace):
                for (newkey, dn, dc), _choice in trans.items():
                    target = new_layer.get(newkey)
                    if target is None:
                        target = new_layer[newkey] = {}
                    dp = dn * rp
                    add = (dc << _N_BITS) - clear
                    for tag, (pts, n) in sub.items():
                        tag2 = tag + add
                        old = target.get(tag2)
                        if old is None:
                            target[tag2] = (pts + dp, n + dn)
                        else:
                            a, b = old
                            if pts + dp > a or n + dn > b:
                                target[tag2] = (max(a, pts + dp), max(b, n + dn))
        layer = new_layer
    final: dict[int, tuple[int, int]] = {}
    for key, vals in layer.items():
        if key[:4] == (0, 0, 0, 0) and key[4] >= lay.wild_mandatory and 0 in vals:
            final[key[4]] = vals[0]
    return final


def run(lay: Layout, need_n: int = 0, need_p: int = 0):
    """Sweep every position keeping, per state, the best points for every cards count.

    Returns ``(final, backs)``: ``final`` maps ``t`` (wildcards placed) to ``{n: points}``
    over completed tables (``n`` real hand cards); ``backs[i]`` maps ``(key, tag)`` after
    position ``i`` to ``(previous key, previous tag, choice)``.

    Pruning: an entry is dropped when even playing every later live hand card (and every
    hand joker) could reach neither ``need_n`` cards nor ``need_p`` points, so every final
    entry with ``n + jokers >= need_n`` or ``points >= need_p`` is exact; others may be low.
    """
    both_aces = 1 in lay.positions and 14 in lay.positions
    layer: dict[Key, dict[int, int]] = {(0, 0, 0, 0, 0): {0: 0}}
    backs: list[dict] = []
    fut_n, fut_p = _futures(lay)
    for i, p in enumerate(lay.positions):
        rp = RANK_POINTS[p]
        last_ace = p == 14 and both_aces
        new_layer: dict[Key, dict[int, int]] = {}
        back: dict = {}
        for key, vals in layer.items():
            for sub, trans, clear in _work(lay, key, vals, p, last_ace):
                for (newkey, dn, dc), choice in trans.items():
                    target = new_layer.get(newkey)
                    if target is None:
                        target = new_layer[newkey] = {}
                    dp = dn * rp
                    add = dn + (dc << _N_BITS) - clear
                    for tag, pts in sub.items():
                        tag2 = tag + add
                        p2 = pts + dp
                        old = target.get(tag2)
                        if old is None or p2 > old:
                            target[tag2] = p2
                            back[(newkey, tag2)] = (key, tag, choice)
        if need_n or need_p:
            short_n = need_n - fut_n[i]
            short_p = need_p - fut_p[i]
            pruned: dict[Key, dict[int, int]] = {}
            for key, vals in new_layer.items():
                kept = {tag: pts for tag, pts in vals.items() if (tag & _N_MASK) >= short_n or pts >= short_p}
                if kept:
                    pruned[key] = kept
            new_layer = pruned
        layer = new_layer
        backs.append(back)
    final: dict[int, dict[int, int]] = {}
    for key, vals in layer.items():
        if key[:4] == (0, 0, 0, 0) and key[4] >= lay.wild_mandatory:
            final[key[4]] = {tag: pts for tag, pts in vals.items() if tag <= _N_MASK}
    return final, backs


def _futures(lay: Layout) -> tuple[list[int], list[int]]:
    """Most cards and points still playable after each position (live hand cards and jokers)."""
    fut_n = [0] * len(lay.positions)
    fut_p = [0] * len(lay.positions)
    n, pts = lay.wild_optional, 25 * lay.wild_optional
    for i in range(len(lay.positions) - 1, -1, -1):
        fut_n[i], fut_p[i] = n, pts
        p = lay.positions[i]
        n += sum(lay.hand[p])
        pts += sum(lay.hand[p]) * RANK_POINTS[p]
    return fut_n, fut_p


def trace(lay: Layout, backs: list[dict], t: int, n: int) -> list[Choice]:
    """The choices, position by position, of the stored optimum ending in ``(t, n)``."""
    key: Key = (0, 0, 0, 0, t)
    choices: list[Choice] = []
    for back in reversed(backs):
        key, n, choice = back[(key, n)]
        choices.append(choice)
    choices.reverse()
    return choices
