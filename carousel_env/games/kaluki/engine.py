"""Kaluki's rules engine: the pure :func:`apply` (RULES.md, "Kaluki" and "Rummy").

The player to act first draws the top of the stock or of the discard pile, then in any
order opens, lays melds, lays off, exchanges jokers, and discards. The hand ends as soon as
a hand is empty (by melding, laying off or discarding the last card; only by the discard
under ``go_out_by_discard``), or when the stock runs out after its ``restocks``. Every bad
move raises :class:`~carousel_env.core.errors.IllegalAction` naming the rule, and the state it
was given is unchanged (states are frozen).

Modelling decisions (RULES.md leaves the form of the moves open):

* Taking the discard where the rules require it to be laid this turn (before opening in the
  book, always under ``discard_take: meld``) is one move that carries the melds it is laid in
  (the opening, if the player has not opened): a take without them is illegal.
* Under ``retrieved_joker: reuse_now`` the exchange carries the new melds the released
  joker(s) go into, laid with hand cards in the same move.
* The card taken from the pile may not be discarded that turn: no card identical to it may
  be (identical cards are interchangeable), until one copy of it is laid on the table.
* A move that would leave the player unable to end the turn is illegal: the hand must keep
  a card it may discard, unless the move empties it and going out that way is allowed, or
  it keeps only copies of the taken card and one of them can still be laid off this turn
  (a play of several moves passes through that state: lay a joker as KH, then the AH after it;
  never under ``go_out_by_discard``, where laying off the last copy would go out).
* What every player has seen go into a hand (the pile's top taken, a joker won by an exchange)
  and not yet seen leave it is public: ``KalukiState.known``, for observations and players.
* A stock turned over is the pile face down: the pile's first card becomes the stock's top.
  Drawing from an empty stock with no restock left (or nothing to turn over) ends the hand.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from carousel_env.core.cards import (
    JOKER,
    NUM_CARDS,
    Card,
    card_str,
    hand_str,
    holds,
    is_hand_card,
    is_table_joker,
    joker_as,
    without,
)
from carousel_env.core.errors import IllegalAction
from carousel_env.games.kaluki.deal import end_hand, new_game, next_hand, next_seat
from carousel_env.games.kaluki.melds import (
    End,
    Meld,
    MeldError,
    MeldKind,
    exchanged,
    fits,
    laid_off,
    lays_card,
    make_run,
    make_set,
)
from carousel_env.games.kaluki.melds import meld_value as _meld_value
from carousel_env.games.kaluki.rules import PILE_TAKE_LIMIT, DiscardTake, RetrievedJoker
from carousel_env.games.kaluki.state import NO_CARD, Hand, HandEnd, KalukiState, Move, MoveKind, Phase

__all__ = ["apply", "end_hand", "may_lay_off", "may_open", "new_game", "next_hand", "opening_value", "without"]


def _set(values: tuple, seat: int, value) -> tuple:
    return (*values[:seat], value, *values[seat + 1 :])


def opening_value(melds, rules) -> int:
    """What ``melds`` count toward the opening requirement."""
    return sum(_meld_value(m, rules) for m in melds)


def may_open(state: KalukiState) -> bool:
    """Whether the player to act may open now (they have drawn and not opened)."""
    return state.phase is Phase.PLAY and not state.opened[state.current]


def may_lay_off(state: KalukiState, seat: int | None = None) -> bool:
    """Whether the player to act may lay off (or exchange a joker) on ``seat``'s melds (any seat's if None)."""
    s, rules = state.current, state.rules
    if state.phase is not Phase.PLAY:
        return False
    if state.opened[s]:
        return True
    if rules.open_before_lay_off:
        return False
    return not rules.lay_off_after_own_meld or seat == s


def _checked_melds(state: KalukiState, melds, what: str) -> tuple[Meld, ...]:
    """``melds`` checked anew from their units (a Meld built by hand may be anything)."""
    s = state.current
    if isinstance(melds, Meld) or not isinstance(melds, (tuple, list)):
        raise IllegalAction(f"{what} takes a tuple of melds (kaluki.melds.Meld), got {melds!r}")
    checked = []
    for meld in melds:
        if not isinstance(meld, Meld) or not isinstance(meld.units, tuple):
            raise IllegalAction(f"{what} takes melds (kaluki.melds.Meld), got {meld!r}")
        try:
            if meld.kind is MeldKind.SET:
                checked.append(make_set(meld.units))
            elif meld.kind is MeldKind.RUN:
                checked.append(make_run(meld.units, meld.low, state.rules))
            else:
                raise IllegalAction(f"{what}: a meld is a set or a run, got {meld.kind!r}")
        except MeldError as exc:
            raise IllegalAction(f"player {s} cannot lay {meld}: {exc}") from None
    return tuple(checked)


def _put_melds(state: KalukiState, hand: Hand, melds: tuple[Meld, ...], what: str, opening: bool) -> KalukiState:
    """``melds`` laid by the player to act from ``hand`` (their hand as it stands in the move)."""
    s, rules = state.current, state.rules
    if not melds:
        raise IllegalAction(f"{what} lays at least one meld")
    cards = [c for m in melds for c in m.cards()]
    if not holds(hand, cards):
        raise IllegalAction(f"player {s} cannot lay {hand_str(cards)}: not all in hand ({hand_str(hand)})")
    if opening:
        value = opening_value(melds, rules)
        if value < rules.opening:
            raise IllegalAction(
                f"player {s} cannot open with {value} points: the opening requirement is {rules.opening} (opening)"
            )
    taken = state.taken
    if taken != NO_CARD and taken in cards:
        taken = NO_CARD  # a copy of the taken card is on the table: the one taken, as copies are interchangeable
    return replace(
        state,
        hands=_set(state.hands, s, without(hand, cards)),
        melds=_set(state.melds, s, (*state.melds[s], *melds)),
        opened=_set(state.opened, s, True),
        taken=taken,
        laid_now=True,
    )


def _settle(state: KalukiState) -> KalukiState:
    """After a play: the hand ends if the player's hand is empty; the player must still be
    able to end the turn."""
    s, hand = state.current, state.hands[state.current]
    if not hand:
        if state.rules.go_out_by_discard:
            raise IllegalAction(f"player {s} must keep a card to discard: going out is by discard (go_out_by_discard)")
        return end_hand(state, HandEnd.OUT, s)
    # Copies of the taken card alone may not be discarded; they pass only if one can still be
    # laid off, and not under go_out_by_discard, where laying off the last would go out.
    if all(c == state.taken for c in hand) and (
        state.rules.go_out_by_discard or not _fits_somewhere(state, state.taken)
    ):
        raise IllegalAction(
            f"player {s} would keep only {card_str(state.taken)}, taken from the pile this turn: it may not be "
            "discarded, so a card must remain to discard"
        )
    return state


def _fits_somewhere(state: KalukiState, card: Card) -> bool:
    """Whether ``card`` can be laid off now on some meld: a hand of only the taken card's
    copies is not stuck while one of them can still go to the table this turn."""
    for seat in range(state.num_players):
        if not may_lay_off(state, seat):
            continue
        if any(fits(meld, card, state.rules) for meld in state.melds[seat]):
            return True
    return False


# ---------------------------------------------------------------- the draw


def _draw_stock(state: KalukiState) -> KalukiState:
    s, rules = state.current, state.rules
    if not state.stock:
        if state.restocks_used >= rules.restocks or not state.discards:
            return end_hand(state, HandEnd.STOCK, -1)
        # Turned over without shuffling: the pile's first card is the new stock's top.
        state = replace(
            state, stock=tuple(reversed(state.discards)), discards=(), restocks_used=state.restocks_used + 1
        )
    card = state.stock[-1]
    hand = tuple(sorted((*state.hands[s], card)))
    return replace(state, hands=_set(state.hands, s, hand), stock=state.stock[:-1], phase=Phase.PLAY)


def _take_discard(state: KalukiState, melds) -> KalukiState:
    s, rules = state.current, state.rules
    if not state.discards:
        raise IllegalAction("the discard pile is empty: draw from the stock")
    card = state.top
    melds = _checked_melds(state, melds, "taking the discard")
    opened = state.opened[s]
    required = rules.discard_take is DiscardTake.MELD or (rules.discard_take is DiscardTake.OPENING and not opened)
    if required and not lays_card(melds, card):
        rule = (
            "before opening the discard may be taken only as part of the opening laid this turn (discard_take: opening)"
            if rules.discard_take is DiscardTake.OPENING
            else "the discard may be taken only to be laid in a meld this turn (discard_take: meld)"
        )
        raise IllegalAction(f"player {s} cannot take {card_str(card)}: {rule}")
    hand = tuple(sorted((*state.hands[s], card)))
    state = replace(
        state,
        hands=_set(state.hands, s, hand),
        discards=state.discards[:-1],
        pile_takes=state.pile_takes + 1,
        taken=card,
        phase=Phase.PLAY,
    )
    if melds:
        state = _put_melds(state, hand, melds, "taking the discard with melds", opening=not opened)
    return _settle(state)


# ---------------------------------------------------------------- plays


def _open(state: KalukiState, melds) -> KalukiState:
    s = state.current
    if state.opened[s]:
        raise IllegalAction(f"player {s} has opened this hand already: opening is once a hand (lay further melds)")
    melds = _checked_melds(state, melds, "opening")
    return _settle(_put_melds(state, state.hands[s], melds, "an opening", opening=True))


def _meld(state: KalukiState, melds) -> KalukiState:
    s = state.current
    if not state.opened[s]:
        raise IllegalAction(f"player {s} has not opened: the first melds are an opening (OPEN)")
    melds = _checked_melds(state, melds, "laying melds")
    return _settle(_put_melds(state, state.hands[s], melds, "laying melds", opening=False))


def _target(state: KalukiState, move: Move) -> Meld:
    s, seat, index = state.current, move.seat, move.meld
    if not isinstance(seat, int) or not 0 <= seat < state.num_players:
        raise IllegalAction(f"no player {seat!r} at the table")
    if not isinstance(index, int) or not 0 <= index < len(state.melds[seat]):
        raise IllegalAction(f"player {seat} has no meld {index!r} on the table")
    if not may_lay_off(state, seat):
        rule = (
            "a player lays off and exchanges jokers only after opening"
            if state.rules.open_before_lay_off
            else "no lay-off on others' melds until one has laid a meld of one's own (lay_off_after_own_meld)"
        )
        raise IllegalAction(f"player {s} may not play on player {seat}'s melds: {rule}")
    return state.melds[seat][index]


def _lay_off(state: KalukiState, move: Move) -> KalukiState:
    s, card = state.current, move.card
    meld = _target(state, move)
    if not is_hand_card(card) or card not in state.hands[s]:
        raise IllegalAction(f"player {s} cannot lay off {card!r}: not in hand ({hand_str(state.hands[s])})")
    if card == JOKER:
        if not isinstance(move.declare, int) or not 0 <= move.declare < NUM_CARDS:
            raise IllegalAction(f"a joker laid off declares a card (declare), got {move.declare!r}")
        unit = joker_as(move.declare)
    else:
        unit = card
    if move.end is not None and move.end not in (End.LOW, End.HIGH):
        raise IllegalAction(f"a lay-off's end is None, End.LOW or End.HIGH, got {move.end!r}")
    try:
        grown = laid_off(meld, unit, state.rules, None if move.end is None else End(move.end))
    except MeldError as exc:
        raise IllegalAction(f"player {s} cannot lay off: {exc}") from None
    hand = without(state.hands[s], [card])
    state = replace(
        state,
        hands=_set(state.hands, s, hand),
        melds=_set(state.melds, move.seat, _set(state.melds[move.seat], move.meld, grown)),
        taken=NO_CARD if card == state.taken else state.taken,
        laid_now=True,
    )
    return _settle(state)


def _exchange(state: KalukiState, move: Move) -> KalukiState:
    s, rules = state.current, state.rules
    meld = _target(state, move)
    cards = tuple(move.cards) if isinstance(move.cards, (tuple, list)) else None
    if cards is None or not all(is_hand_card(c) for c in cards) or not holds(state.hands[s], cards):
        raise IllegalAction(f"player {s} cannot exchange {move.cards!r}: not all in hand ({hand_str(state.hands[s])})")
    if not isinstance(move.card, int) or not 0 <= move.card < NUM_CARDS:
        raise IllegalAction(f"an exchange names the joker by its declared card (card), got {move.card!r}")
    try:
        freed, released = exchanged(meld, move.card, cards, rules)
    except MeldError as exc:
        raise IllegalAction(f"player {s} cannot exchange the joker: {exc}") from None
    hand = tuple(sorted((*without(state.hands[s], cards), *[JOKER] * released)))
    state = replace(
        state,
        hands=_set(state.hands, s, hand),
        melds=_set(state.melds, move.seat, _set(state.melds[move.seat], move.meld, freed)),
        taken=NO_CARD if state.taken in cards else state.taken,
        laid_now=True,
    )
    melds = _checked_melds(state, move.melds, "an exchange")
    if rules.retrieved_joker is RetrievedJoker.REUSE_NOW:
        jokers = sum(is_table_joker(u) for m in melds for u in m.units)
        if jokers < released:
            raise IllegalAction(
                f"player {s} must lay the released joker(s) this turn in new melds with hand cards "
                f"(retrieved_joker: reuse_now): the exchange carries those melds ({released} joker(s), got {jokers})"
            )
        state = _put_melds(state, hand, melds, "an exchange under reuse_now", opening=False)
    elif melds:
        raise IllegalAction("the released joker goes to the hand (retrieved_joker: hand): lay melds with MELD")
    return _settle(state)


def _discard(state: KalukiState, card: Card) -> KalukiState:
    s = state.current
    if not is_hand_card(card) or card not in state.hands[s]:
        raise IllegalAction(f"player {s} cannot discard {card!r}: not in hand ({hand_str(state.hands[s])})")
    if card == state.taken:
        rule = "a card taken from the discard pile may not be discarded that turn"
        raise IllegalAction(f"player {s} took {card_str(card)} from the discard pile this turn: {rule}")
    hand = without(state.hands[s], [card])
    state = replace(state, hands=_set(state.hands, s, hand), discards=(*state.discards, card))
    if not hand:
        return end_hand(state, HandEnd.OUT, s)
    state = replace(
        state,
        laid=_set(state.laid, s, state.laid[s] or state.laid_now),
        laid_now=False,
        taken=NO_CARD,
        current=next_seat(s, state.in_play),
        phase=Phase.DRAW,
    )
    if state.pile_takes >= PILE_TAKE_LIMIT:
        return end_hand(state, HandEnd.PILE_LIMIT, -1)
    return state


_PLAYS = {MoveKind.OPEN: _open, MoveKind.MELD: _meld}
_SEEN_GOING_IN = (MoveKind.TAKE_DISCARD, MoveKind.EXCHANGE)  # the moves that put cards into a hand in sight of all


def apply(state: KalukiState, move: Move) -> KalukiState:
    """The state after the player to act makes ``move``; :class:`IllegalAction` if it breaks a rule."""
    after = _apply(state, move)
    # Cards go into a hand in sight of all only by a take or an exchange (a stock card comes
    # unseen); otherwise only a seat that is known to hold something can have that change.
    seen = move.kind in _SEEN_GOING_IN or (state.known[state.current] and move.kind is not MoveKind.DRAW_STOCK)
    return _track_known(state, after) if seen else after


def _track_known(before: KalukiState, after: KalukiState) -> KalukiState:
    """``after`` with the mover's known cards: those every player saw go into its hand (the
    pile's top, jokers won by an exchange), less those seen to leave it. Only the table's view
    counts: a copy laid may be the one taken, so it is no longer known."""
    s = before.current
    change = Counter(after.hands[s])
    change.subtract(before.hands[s])  # what went in less what went out, all of it seen
    if not before.known[s] and not +change:
        return after
    known = Counter(before.known[s])
    known.update(change)
    return replace(after, known=_set(after.known, s, tuple(sorted((+known).elements()))))


def _apply(state: KalukiState, move: Move) -> KalukiState:
    if not isinstance(move, Move) or not isinstance(move.kind, MoveKind):
        raise IllegalAction(f"a move is a kaluki.state.Move, got {move!r}")
    if state.over:
        raise IllegalAction(f"the hand is over ({state.phase.value}): no moves until the next deal")
    kind, s = move.kind, state.current
    if state.phase is Phase.DRAW:
        if kind is MoveKind.DRAW_STOCK:
            return _draw_stock(state)
        if kind is MoveKind.TAKE_DISCARD:
            return _take_discard(state, move.melds)
        raise IllegalAction(f"player {s} must first draw (from the stock or the discard pile), not {kind.name}")
    if kind in (MoveKind.DRAW_STOCK, MoveKind.TAKE_DISCARD):
        raise IllegalAction(f"player {s} has drawn this turn: one draw a turn")
    if kind is MoveKind.DISCARD:
        return _discard(state, move.card)
    if kind in _PLAYS:
        return _PLAYS[kind](state, move.melds)
    if kind is MoveKind.LAY_OFF:
        return _lay_off(state, move)
    return _exchange(state, move)
