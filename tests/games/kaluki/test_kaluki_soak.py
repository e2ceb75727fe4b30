"""The Kaluki soak's CI slice, and proof that each of its checks catches what it looks for
(the broken state, score or reward built by hand)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from carousel_env.core.cards import JOKER, make_deck, parse_card, parse_hand, parse_meld, without
from carousel_env.games.kaluki import melds as km
from carousel_env.games.kaluki.engine import apply, new_game
from carousel_env.games.kaluki.rules import PRESETS, KalukiRules
from carousel_env.games.kaluki.state import DRAW_STOCK, Phase, discard, exchange, lay_melds, open_with, take_discard
from tests.games.kaluki.positions import lay, melds, position
from tests.support import kaluki_soak as ks
from tests.support.soak_runner import env_problems

SLICE = 32  # games: about 10 s on one core
BOOK, UK40, RUMMY = ks.BOOKS["book"], ks.BOOKS["uk40"], ks.BOOKS["rummy"]
TEN_C = parse_card("10C")


@pytest.mark.soak
def test_soak_slice_breaks_no_invariant():
    report = ks.run(SLICE, seed=0, workers=0)
    assert not report.violations, "\n".join(report.violations[:20])
    assert report.games == SLICE and report.hands >= SLICE and report.ends["games over"] == SLICE
    assert report.ends["out"] > 0 and report.ends["stock"] > 0 and report.ends["restocks"] > 0
    assert report.ends["lay-offs"] > 0 and report.ends["exchanges"] > 0


def test_the_books_agree_with_the_presets():
    for preset, book in ks.BOOKS.items():
        rules = PRESETS[preset]
        assert book.pack() == Counter(make_deck(rules.decks, rules.jokers)), preset
        assert [book.value(c) for c in range(53)] == [rules.card_value(c) for c in range(53)], preset
        assert book.hand_sizes == rules.hand_sizes and book.opening == rules.opening, preset


def test_lost_or_doubled_cards_are_found():
    state = new_game(PRESETS["book"], 3, 0)
    assert ks.card_problems(state, BOOK) == []
    assert "missing [" in ks.card_problems(replace(state, stock=state.stock[1:]), BOOK)[0]
    # A table joker is a joker of the pack: the pack less a meld's cards, and the meld, hold it all.
    stock = without(make_deck(2, 4), [parse_card("6H"), JOKER, parse_card("6D")])
    table = replace(state, hands=((),) * 3, discards=(), stock=stock, melds=((melds("6H JK=6S 6D")[0],), (), ()))
    assert ks.card_problems(table, BOOK) == []
    assert "extra [6D 6H JK]" in ks.card_problems(replace(table, stock=tuple(make_deck(2, 4))), BOOK)[0]


def test_invalid_melds_and_jokers_are_found():
    rules = KalukiRules()
    assert ks.meld_problem(km.meld_from_units(parse_meld("6H JK=6S 6D"), rules), True, True) == ""
    assert ks.meld_problem(km.meld_from_units(parse_meld("QS KS AS"), rules), True, True) == ""
    broken = {
        "no natural": km.Meld(km.MeldKind.SET, parse_meld("JK=6C JK=6S JK=6D")),
        "different suits": km.Meld(km.MeldKind.SET, parse_meld("6H 6H 6S")),
        "consecutive ranks": km.Meld(km.MeldKind.RUN, parse_meld("5H 6H 8H"), 5),
        "one suit": km.Meld(km.MeldKind.RUN, parse_meld("5H 6S 7H"), 5),
        "declaring one card": km.Meld(km.MeldKind.SET, (*parse_meld("6H 6S"), JOKER)),
    }
    for what, meld in broken.items():
        assert what in ks.meld_problem(meld, True, True), what
    low_ace = km.meld_from_units(parse_meld("AS 2S 3S"), rules)
    assert ks.meld_problem(low_ace, True, True) == "" and "ace's places" in ks.meld_problem(low_ace, False, True)
    state = position(["2C 3C 4C", "9H"], melds=[["5H 6H 7H"], []])
    state = replace(state, melds=((broken["consecutive ranks"],), ()))
    assert "player 0's meld" in ks.meld_problems(state, BOOK)[0]


def test_hand_size_rules_are_found():
    state = position(["8C 2D", "9H"], taken="8C")
    assert ks.hand_size_problems(state, (0, 1), BOOK) == []
    stuck = position(["8C", "9H"], taken="8C")
    assert "nothing it may discard or lay off" in ks.hand_size_problems(stuck, (0, 1), BOOK)[0]
    assert "holds 0 cards" in ks.hand_size_problems(position(["8C 2D", ""]), (0, 1), BOOK)[0]
    assert "holds 1 cards" in ks.hand_size_problems(state, (0,), BOOK)[0]  # a seat out of the hand holds nothing
    # Only copies of the card taken, one of which can still be laid off: lay it, then discard the other.
    copies = position(["AC AC", "9H"], melds=[["7D 7S 7H"], ["2C 3C 4C"]], taken="AC")
    assert ks.hand_size_problems(copies, (0, 1), BOOK) == []
    assert ks.hand_size_problems(copies, (0, 1), replace(BOOK, ace_low=False))  # UK: no A-2-3
    no_room = position(["AC AC", "9H"], melds=[["7D 7S 7H"], ["7C 8C 9C"]], taken="AC")
    assert "nothing it may discard or lay off" in ks.hand_size_problems(no_room, (0, 1), BOOK)[0]


def test_what_a_card_fits():
    run, full_set = melds("QS KS AS")[0], melds("7D 7S 7H 7C")[0]
    assert ks.fits(run, parse_card("JS"), BOOK) and not ks.fits(run, parse_card("2S"), BOOK)
    assert ks.fits(run, JOKER, BOOK) and not ks.fits(full_set, JOKER, BOOK)
    assert ks.fits(melds("7D 7S 7H")[0], parse_card("7C"), BOOK) and not ks.fits(full_set, parse_card("7C"), BOOK)


def test_wrong_deals_are_found():
    state = new_game(PRESETS["book"], 5, 3)
    assert ks.deal_problems(state, BOOK, (True,) * 5, None, (0,) * 5) == []
    short = replace(state, hands=(state.hands[0][1:], *state.hands[1:]))
    assert (
        "dealt hands of [12, 13, 13, 13, 13] and a pile of 1: RULES.md deals 13"
        in ks.deal_problems(short, BOOK, (True,) * 5, None, (0,) * 5)[0]
    )
    other = (state.dealer + 1) % 5
    assert "RULES.md: dealer" in ks.deal_problems(state, BOOK, (True,) * 5, other, (0,) * 5)[0]
    assert "totals" in ks.deal_problems(state, BOOK, (True,) * 5, None, (1, 0, 0, 0, 0))[0]


def test_lay_offs_that_change_the_wrong_thing_are_found():
    state = position(["7H 2C 3D", "KS"], melds=[["JC QC KC"], ["4H 5H 6H"]])
    move = lay("7H", 1, 0)
    after = apply(state, move)
    assert ks.move_problems(state, move, after, BOOK) == []
    grown_twice = replace(after, melds=(after.melds[0], melds("4H 5H 6H 7H 8H")))
    assert "turned 4H 5H 6H into" in ks.move_problems(state, move, grown_twice, BOOK)[0]
    other_meld_too = replace(after, melds=(melds("JC QC KC AC"), after.melds[1]))
    assert "changed melds" in ks.move_problems(state, move, other_meld_too, BOOK)[0]
    unopened = position(["7H 2C 3D", "KS"], melds=[[], ["4H 5H 6H"]], opened=(False, True))
    lay_first = apply(replace(unopened, rules=PRESETS["rummy"]), move)
    assert "before opening" in ks.move_problems(unopened, move, lay_first, BOOK)[0]


def test_joker_exchanges_against_the_rules_are_found():
    table = [["7D 7S 7H"], ["8C 9C JK=10C JC"]]
    state = position(["10C 5S 5D 2H", "2S 3S"], melds=table, opened=(True, True))
    move = exchange(1, 0, TEN_C, [TEN_C])
    after = apply(state, move)
    assert ks.move_problems(state, move, after, BOOK) == []
    kept_no_joker = replace(after, hands=(parse_hand("5S 5D 2H"), after.hands[1]))
    assert "more in hand" in ks.move_problems(state, move, kept_no_joker, BOOK)[0]
    # Under reuse_now the released joker must go into the move's new melds, not the hand.
    assert "reuse_now" in ks.move_problems(state, move, after, UK40)[0]
    reuse = replace(state, rules=KalukiRules(retrieved_joker="reuse_now"))
    relaid = exchange(1, 0, TEN_C, [TEN_C], melds("5S 5D JK=5C", rules=reuse.rules))
    assert ks.move_problems(reuse, relaid, apply(reuse, relaid), replace(BOOK, uk=True)) == []
    moved_joker = replace(after, melds=(after.melds[0], melds("8C 9C 10C JC JK=QC")))
    assert "turned 8C 9C JK=10C JC" in ks.move_problems(state, move, moved_joker, BOOK)[0]


def test_openings_takes_and_going_out_against_the_rules_are_found():
    forty = position(["JS QS KS 5H 5D 5C 2D", "2S"], opened=(False, False), rules=KalukiRules(opening=40))
    move = open_with(melds("JS QS KS", "5H 5D 5C"))
    assert ks.move_problems(forty, move, apply(forty, move), replace(BOOK, opening=40)) == []
    assert "under 51" in ks.move_problems(forty, move, apply(forty, move), BOOK)[0]
    drawing = position(["9C 10C KH", "2S"], phase=Phase.DRAW, discards="4D 8C", opened=(False, False))
    free_take = apply(replace(drawing, rules=PRESETS["rummy"]), take_discard())
    assert ks.move_problems(drawing, take_discard(), free_take, RUMMY) == []
    assert "without laying it" in ks.move_problems(drawing, take_discard(), free_take, BOOK)[0]
    out = position(["5H 6H 7H", "KS 2C"], melds=[["2D 3D 4D"], []])
    by_melding = lay_melds(melds("5H 6H 7H"))
    assert ks.move_problems(out, by_melding, apply(out, by_melding), BOOK) == []
    assert "go_out_by_discard" in ks.move_problems(out, by_melding, apply(out, by_melding), UK40)[0]


def test_a_stock_turned_over_wrongly_is_found():
    state = position(["2H 9S", "KS"], phase=Phase.DRAW, stock="", discards="3C 4C 5C")
    after = apply(state, DRAW_STOCK)
    assert after.hands[0] == parse_hand("2H 3C 9S") and ks.move_problems(state, DRAW_STOCK, after, BOOK) == []
    shuffled = replace(after, stock=tuple(reversed(after.stock)))
    assert "not RULES.md's" in ks.move_problems(state, DRAW_STOCK, shuffled, BOOK)[0]
    again = replace(state, restocks_used=1)
    assert "turned over again: 1 of 1" in ks.move_problems(again, DRAW_STOCK, after, BOOK)[0]


def test_discarding_the_card_taken_is_found():
    watch = ks.Watch(RUMMY, 2)
    drawing = position(["9C 2D", "2S"], phase=Phase.DRAW, discards="4D 8C", rules=PRESETS["rummy"])
    took = apply(drawing, take_discard())
    assert watch._turn(drawing, take_discard(), took) == []
    assert "taken from the pile" in watch._turn(took, discard(parse_card("8C")), took)[0]


def going_out(book: ks.Book, totals=(0, 0, 0), rules: KalukiRules | None = None):
    """RULES.md's example 7: player 0 lays its last meld; the others hold JK AS 7D and KC 2H."""
    hands = ["5H 6H 7H", "JK AS 7D", "KC 2H"]
    state = position(hands, melds=[["2C 3C 4C"], [], []], totals=totals, rules=rules or KalukiRules())
    end = apply(state, lay_melds(melds("5H 6H 7H")))
    return end, ks.hand_problems(end, book, (0, 1, 2), {0}, totals, (True,) * 3)


def test_wrong_hand_scores_and_totals_are_found():
    end, (found, seen) = going_out(BOOK)
    assert found == [] and seen.scores == (55, 0, 0) and seen.values == (0, 43, 12)
    result = end.last_hand
    wrong = replace(end, results=(replace(result, scores=(54, 0, 0)),))
    assert (
        "RULES.md gives ((0, 43, 12), False, (55, 0, 0))"
        in ks.hand_problems(wrong, BOOK, (0, 1, 2), {0}, (0,) * 3, (True,) * 3)[0][0]
    )
    assert (
        "totals" in ks.hand_problems(replace(end, totals=(50, 0, 0)), BOOK, (0, 1, 2), {0}, (0,) * 3, (True,) * 3)[0][0]
    )
    _, (found, seen) = going_out(replace(BOOK, penalty=True), rules=KalukiRules(scoring="penalty"))
    assert found == [] and seen.scores == (0, 43, 12)
    assert "RULES.md gives ((0, 43, 12), False, (0, 43, 12))" in going_out(replace(BOOK, penalty=True))[1][0][0]
    # Out in one turn having laid nothing before: a rummy, which the engine was told it was not.
    rummy = ks.hand_problems(end, replace(BOOK, bonus="plus10"), (0, 1, 2), set(), (0,) * 3, (True,) * 3)
    assert "RULES.md gives ((0, 43, 12), True, (65, 0, 0))" in rummy[0][0]


def test_scores_of_a_hand_nobody_won_follow_the_rules():
    assert ks.rules_scores(BOOK, (43, 12, 5), -1, False, (0, 1, 2)) == (0, 0, 0)
    assert ks.rules_scores(replace(BOOK, penalty=True), (43, 12, 5), -1, False, (0, 1, 2)) == (43, 12, 5)
    assert ks.rules_scores(replace(BOOK, penalty=True, bonus="double"), (0, 12, 5), 0, True, (0, 1, 2)) == (0, 24, 10)
    assert ks.rules_scores(replace(BOOK, penalty=True), (0, 12, 5), 0, False, (0, 1)) == (0, 12, 0)


def test_wrong_game_ends_are_found():
    end, (found, seen) = going_out(BOOK, totals=(200, 0, 0))
    assert found == [] and end.phase is Phase.GAME_OVER and seen.winners == (0,)
    going_on = replace(end, phase=Phase.HAND_OVER, game_result=None)
    assert "game over False" in ks.hand_problems(going_on, BOOK, (0, 1, 2), {0}, (200, 0, 0), (True,) * 3)[0][0]
    uk = replace(UK40, limit=150)
    assert ks.rules_game_end(uk, (0, 151, 20), (True,) * 3, 0, 5) == ((True, False, True), None)
    assert ks.rules_game_end(uk, (0, 151, 20), (True, True, False), 0, 5) == ((True, False, False), (0,))
    assert ks.rules_game_end(uk, (160, 151, 0), (True, True, False), -1, 5) == ((False, False, False), (1,))
    assert ks.rules_game_end(replace(uk, first_to_limit=True), (40, 150, 20), (True,) * 3, 0, 5) == ((True,) * 3, (2,))
    assert ks.rules_game_end(replace(BOOK, single_hand=True), (0, 0), (True, True), -1, 1) == ((True, True), ())


def test_the_documented_rewards_and_wrong_rewards_are_found():
    _, (_, seen) = going_out(BOOK)
    assert ks.documented_rewards(seen, BOOK, "score", 0.01) == pytest.approx([0.55, -0.43, -0.12])
    assert ks.documented_rewards(seen, BOOK, "result", 1.0) == [0.0, 0.0, 0.0]  # the match goes on
    _, (_, won) = going_out(BOOK, totals=(200, 0, 0))
    assert ks.documented_rewards(won, BOOK, "result", 1.0) == [1.0, -0.5, -0.5]  # the losers tied at 0
    penalty = seen._replace(scores=(0, 43, 12))
    assert ks.documented_rewards(penalty, replace(BOOK, penalty=True), "score", 0.01) == pytest.approx(
        [0.18333, -0.24667, 0.06333], abs=1e-5
    )
    env = ks.WatchedEnv(BOOK, preset="book", num_players=3)
    env.reset(seed=1)
    assert ks.step_problems(env) == [] and env_problems(env) == []
    env.rewards[env.possible_agents[0]] = 0.5
    assert "rewards [0.5, 0.0, 0.0]" in ks.step_problems(env)[0]


def test_bad_observations_and_masks_are_found():
    env = ks.WatchedEnv(BOOK, preset="book", num_players=2)
    env.reset(seed=2)
    obs = env.observe(env.agent_selection)
    obs["observation"][0] = 2.0
    assert "outside its space" in env_problems(env)[0]
    obs["observation"][0] = 0.0
    obs["action_mask"][:] = 0
    assert "0 legal actions" in env_problems(env)[0]


def test_a_step_that_is_not_its_moves_is_found():
    watch = ks.Watch(BOOK, 2)
    state = position(["7H 2C 3D", "KS"], melds=[["JC QC KC"], ["4H 5H 6H"]])
    move = lay("7H", 1, 0)
    watch.moved(state, (move,), state)
    assert "is not the moves'" in watch.found[-1]


def test_a_violation_names_the_game_seed_the_step_and_what_broke(monkeypatch):
    from carousel_env.games.kaluki import env as kaluki_env

    documented = kaluki_env.hand_rewards

    def overpaid(config, result, state):
        paid = documented(config, result, state)
        return [paid[0] + 0.25, *paid[1:]]

    monkeypatch.setattr(kaluki_env, "hand_rewards", overpaid)
    report = ks.play_game(2)
    assert report.violations and report.violations[0].startswith("game seed 2 ({'preset'")
    assert ", step " in report.violations[0] and "the documented rewards are" in report.violations[0]
