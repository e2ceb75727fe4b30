"""Carioca's engine from concrete card situations (RULES.md, "Carioca"), and random games
with every invariant checked after every move."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from carousel_env.core.cards import JOKER, make_deck, parse_card, parse_hand, parse_meld
from carousel_env.core.errors import IllegalAction
from carousel_env.games.carioca import engine as ce
from carousel_env.games.carioca import melds as cm
from carousel_env.games.carioca.engine import DRAW_STOCK, TAKE_DISCARD, Move, MoveKind, Phase, RoundEnd
from carousel_env.games.carioca.melds import End, LayOff
from carousel_env.games.carioca.rules import CONTRACTS, DECK_SIZE, HAND_SIZE, hand_points


def position(
    hands,
    *,
    round_index=0,
    current=0,
    phase=Phase.PLAY,
    melds=None,
    down=None,
    stock="2C 3C 4C",
    discards="9D",
    reshuffled=False,
) -> ce.CariocaState:
    """A hand-made position: seats' hands and melds as text."""
    n = len(hands)
    table = tuple(tuple(cm.meld_from_units(parse_meld(t)) for t in seat) for seat in (melds or [[]] * n))
    return ce.CariocaState(
        num_players=n,
        round=round_index,
        dealer=(current - 1) % n,
        current=current,
        phase=phase,
        hands=tuple(parse_hand(h) for h in hands),
        stock=cards_in_order(stock),
        discards=cards_in_order(discards),
        melds=table,
        down=tuple(down) if down else tuple(bool(m) for m in table),
        reshuffled=reshuffled,
        taken=((),) * n,
        thrown=((),) * n,
        scores=(0,) * n,
    )


def cards_in_order(text: str) -> tuple:
    """Cards as written (a pile or a stock: its order matters, the last is the top)."""
    return tuple(parse_card(t) for t in text.split())


def discard(text: str) -> Move:
    return Move(MoveKind.DISCARD, parse_card(text))


def lay(card: str, seat: int, meld: int, end: End = End.LOW) -> Move:
    return Move(MoveKind.LAY_OFF, layoff=LayOff(parse_card(card), seat, meld, end))


def all_cards(state: ce.CariocaState) -> Counter:
    cards = Counter(state.stock) + Counter(state.discards)
    for seat in range(state.num_players):
        cards += Counter(state.hands[seat])
        for m in state.melds[seat]:
            cards += Counter(m.cards())
    return cards


FULL_DECK = Counter(make_deck(2, 4))


# ---------------------------------------------------------------- the deal


@pytest.mark.parametrize("players", range(2, 6))
def test_the_deal(players):
    state = ce.new_game(players, seed=11)
    assert [len(h) for h in state.hands] == [HAND_SIZE] * players
    assert len(state.discards) == 1 and len(state.stock) == DECK_SIZE - HAND_SIZE * players - 1
    assert all_cards(state) == FULL_DECK
    assert state.current == (state.dealer + 1) % players and state.phase is Phase.DRAW
    assert state.contract == CONTRACTS[0]
    assert ce.new_game(players, seed=11) == state  # the seed decides everything
    dealers = {ce.new_game(players, seed=s).dealer for s in range(40)}
    assert dealers == set(range(players))  # the first dealer is drawn from the seed


@pytest.mark.parametrize("bad", [1, 6, "3", True])
def test_a_game_needs_two_to_five_players(bad):
    with pytest.raises(IllegalAction, match="2 to 5 players"):
        ce.new_game(bad, seed=0)


# ---------------------------------------------------------------- a turn


def test_draw_first_and_once():
    state = position(["2C 3C", "4D 5D"], phase=Phase.DRAW, discards="8S 9D")
    with pytest.raises(IllegalAction, match="must first draw"):
        ce.apply(state, discard("2C"))
    taken = ce.apply(state, TAKE_DISCARD)
    assert taken.hands[0] == parse_hand("2C 3C 9D") and taken.discards == parse_hand("8S")
    assert taken.taken[0] == parse_hand("9D")  # public: the others saw it taken
    with pytest.raises(IllegalAction, match="one draw a turn"):
        ce.apply(taken, DRAW_STOCK)
    drawn = ce.apply(state, DRAW_STOCK)
    assert drawn.hands[0] == parse_hand("2C 3C 4C") and drawn.stock == parse_hand("2C 3C")


def test_going_down_then_only_the_discard():
    state = position(["7H 7S 7C 8H 8S 8C KH KS 2C 3C 5D 9D", "4D 5D"])
    melds = (cm.meld_from_units(parse_meld("7H 7S 7C")), cm.meld_from_units(parse_meld("8H 8S 8C")))
    down = ce.apply(state, Move(MoveKind.GO_DOWN, melds=melds))
    assert down.down[0] and down.melds[0] == melds and down.hands[0] == parse_hand("KH KS 2C 3C 5D 9D")
    assert ce.go_down_options(down) == [] and ce.layoff_options(down) == []
    with pytest.raises(IllegalAction, match="nothing else that turn"):
        ce.apply(down, lay("KH", 0, 0))
    after = ce.apply(down, discard("KH"))
    assert after.current == 1 and after.phase is Phase.DRAW and not after.went_down_now


@pytest.mark.parametrize(
    ("melds", "rule"),
    [
        (["7H 7S 7C"], "exactly the contract"),
        (["7H 7S 7C 7C", "8H 8S 8C"], "exactly 3"),
        (["7H 7S 7C", "KH KS KC"], "not in hand"),
        (["7H 7S JK=7C", "8H 8S 8C"], "not in hand"),
        (["7H 7S 7C", "7H 7S JK=7D"], "different ranks"),
    ],
)
def test_going_down_errors_name_the_rule_and_change_nothing(melds, rule):
    state = position(["7H 7S 7C 7C 8H 8S 8C KH KS 2C 3C 9D", "4D 5D"])
    before = replace(state)
    move = Move(MoveKind.GO_DOWN, melds=tuple(cm.meld_from_units(parse_meld(m)) for m in melds))
    with pytest.raises(IllegalAction, match=rule):
        ce.apply(state, move)
    assert state == before


def test_going_down_keeps_a_card_and_is_once_a_round():
    hand = "4D 5D 6D 7D 9H 10H JH QH 8S 8C 8H"
    melds = tuple(cm.meld_from_units(parse_meld(m)) for m in ("4D 5D 6D 7D", "9H 10H JH QH", "8S 8C 8H"))
    with pytest.raises(IllegalAction, match="kept to discard"):
        ce.apply(position([hand, "2C"], round_index=5), Move(MoveKind.GO_DOWN, melds=melds))
    state = position([hand + " 2S", "2C"], round_index=5, melds=[[], ["2D 2H 2S"]])
    with pytest.raises(IllegalAction, match="already went down"):
        ce.apply(replace(state, down=(True, True)), Move(MoveKind.GO_DOWN, melds=melds))


def test_round_6_going_down_is_going_out():
    state = position(["4D 5D 6D 7D 9H 10H JH QH 8S 8C 8H 2S", "2C KD", "AS KH JK 5C"], round_index=5)
    (arrangement,) = ce.go_down_options(state)
    down = ce.apply(state, Move(MoveKind.GO_DOWN, melds=arrangement))
    assert down.hands[0] == parse_hand("2S")
    over = ce.apply(down, discard("2S"))
    assert over.phase is Phase.GAME_OVER and over.last_round.end is RoundEnd.OUT and over.last_round.out == 0
    # Worked example 3: AS KH JK 5C scores 14 + 13 + 25 + 5.
    assert over.last_round.penalties == (0, 2 + 13, 57)
    assert over.game_result.winners == (0,)


def test_lay_offs_on_any_players_melds_from_a_later_turn():
    state = position(
        ["3D 9S 7D QS 2C", "4H 5H"],
        melds=[["7H 7S 7C", "8H 8S 8C"], ["JK=3D 4D 5D 6D", "9S 10S JS JK=QS"]],
    )
    options = ce.layoff_options(state)
    assert LayOff(parse_card("3D"), 1, 0, End.LOW) in options and LayOff(parse_card("QS"), 1, 1, End.HIGH) in options
    state = ce.apply(state, lay("3D", 1, 0))
    assert str(state.melds[1][0]) == "JK=2D 3D 4D 5D 6D"
    state = ce.apply(state, lay("QS", 1, 1, End.HIGH))
    assert str(state.melds[1][1]) == "9S 10S JS QS JK=KS"
    state = ce.apply(state, lay("7D", 0, 0))
    assert state.hands[0] == parse_hand("9S 2C")
    with pytest.raises(IllegalAction, match="does not go on"):
        ce.apply(state, lay("9S", 1, 1, End.HIGH))
    with pytest.raises(IllegalAction, match="not in hand"):
        ce.apply(state, lay("KD", 0, 0))
    with pytest.raises(IllegalAction, match="no meld"):
        ce.apply(state, lay("9S", 1, 5))
    state = ce.apply(state, discard("9S"))
    assert state.hands[0] == parse_hand("2C") and state.current == 1


def test_the_last_card_is_kept_to_discard_and_discarding_it_goes_out():
    state = position(["7D 9C", "4H 5H", "KD"], melds=[["7H 7S 7C"], [], []])
    state = ce.apply(state, lay("7D", 0, 0))
    assert ce.layoff_options(state) == []
    with pytest.raises(IllegalAction, match="kept to discard"):
        ce.apply(state, lay("9C", 0, 0))
    over = ce.apply(state, discard("9C"))
    assert over.phase is Phase.ROUND_OVER and over.last_round.penalties == (0, 9, 13)
    assert over.scores == (0, 9, 13) and over.current == -1
    with pytest.raises(IllegalAction, match="round is over"):
        ce.apply(over, DRAW_STOCK)
    nxt = ce.next_round(over)
    assert nxt.round == 1 and nxt.dealer == (over.dealer + 1) % 3 and nxt.scores == (0, 9, 13)
    assert nxt.contract == CONTRACTS[1] and all_cards(nxt) == FULL_DECK


def test_a_player_not_down_cannot_lay_off():
    state = position(["7D 9C 2C", "4H 5H"], melds=[[], ["7H 7S 7C"]])
    with pytest.raises(IllegalAction, match="has not gone down"):
        ce.apply(state, lay("7D", 1, 0))


def test_the_stock_is_rebuilt_once_then_the_round_ends():
    state = position(["2C 3C", "4D 5D"], stock="", discards="8S 9S 10S JD", phase=Phase.PLAY)
    state = ce.apply(state, discard("2C"))  # the next player would draw from an empty stock
    assert state.reshuffled and state.discards == cards_in_order("2C")
    assert sorted(state.stock) == sorted(parse_hand("8S 9S 10S JD"))
    state = replace(state, stock=(), phase=Phase.PLAY, current=1)
    over = ce.apply(state, discard("4D"))
    assert over.last_round.end is RoundEnd.STOCK and over.last_round.out == -1
    assert over.last_round.penalties == (3, 5)
    assert hand_points(parse_hand("AS KH JK 5C")) == 57


def test_the_game_is_won_by_the_lowest_total_and_ties_share():
    state = position(["7D", "4H", "4S"], round_index=5, melds=[["7H 7S 7C"], [], []])
    state = replace(state, scores=(30, 26, 40))
    over = ce.apply(state, discard("7D"))
    assert over.scores == (30, 30, 44) and over.game_result.winners == (0, 1)
    with pytest.raises(IllegalAction, match="round is over"):
        ce.next_round(over)


def test_bad_moves_are_named():
    state = position(["2C 3C", "4D 5D"])
    with pytest.raises(IllegalAction, match=r"carioca\.engine\.Move"):
        ce.apply(state, "discard 2C")
    with pytest.raises(IllegalAction, match="not in hand"):
        ce.apply(state, Move(MoveKind.DISCARD, JOKER))
    with pytest.raises(IllegalAction, match="LayOff"):
        ce.apply(replace(state, down=(True, False)), Move(MoveKind.LAY_OFF))


# ---------------------------------------------------------------- random games


def random_move(state: ce.CariocaState, rng: random.Random) -> Move:
    if state.phase is Phase.DRAW:
        return rng.choice([DRAW_STOCK, TAKE_DISCARD])
    options = [Move(MoveKind.GO_DOWN, melds=m) for m in ce.go_down_options(state, 4)]
    options += [Move(MoveKind.LAY_OFF, layoff=lay_off) for lay_off in ce.layoff_options(state)]
    if options and rng.random() < 0.9:
        return rng.choice(options)
    return Move(MoveKind.DISCARD, rng.choice(ce.legal_discards(state)))


@pytest.mark.parametrize("players", range(2, 6))
def test_random_games_keep_every_invariant(players):
    rng = random.Random(players)
    for seed in range(2):
        state = ce.new_game(players, seed)
        while state.phase is not Phase.GAME_OVER:
            if state.phase is Phase.ROUND_OVER:
                state = ce.next_round(state)
                continue
            state = ce.apply(state, random_move(state, rng))
            assert all_cards(state) == FULL_DECK
            for seat in range(players):
                for m in state.melds[seat]:
                    assert cm.meld_from_units(m.units).units == m.units
                if not state.over:
                    assert state.hands[seat] or seat == state.current
            if not state.over:
                assert state.stock or state.phase is Phase.PLAY
        assert len(state.rounds) == 6
        assert state.scores == tuple(sum(r.penalties[s] for r in state.rounds) for s in range(players))
        for r in state.rounds:
            if r.end is RoundEnd.OUT:
                assert r.penalties[r.out] == 0


@settings(max_examples=12, deadline=None)
@given(st.integers(2, 5), st.integers(0, 2**40), st.integers(0, 2**20))
def test_any_game_keeps_every_card_and_its_melds_valid(players, seed, moves_seed):
    """Property: from any deal, any legal moves keep the 108 cards, every meld valid, every
    failed move the state unchanged, and the scores the sum of the rounds' penalties."""
    rng = random.Random(moves_seed)
    state = ce.new_game(players, seed)
    for _ in range(250):
        if state.phase is Phase.GAME_OVER:
            break
        if state.phase is Phase.ROUND_OVER:
            state = ce.next_round(state)
            continue
        before = state
        # Discarding before the draw, or drawing twice, is never legal.
        illegal = Move(MoveKind.DISCARD, state.hands[state.current][0]) if state.phase is Phase.DRAW else TAKE_DISCARD
        with pytest.raises(IllegalAction):
            ce.apply(state, illegal)
        assert state == before
        state = ce.apply(state, random_move(state, rng))
        assert all_cards(state) == FULL_DECK
        for seat in range(players):
            assert all(cm.meld_from_units(m.units).units == m.units for m in state.melds[seat])
    assert state.scores == tuple(sum(r.penalties[s] for r in state.rounds) for s in range(players))
