"""`glory-ai play` driven through its input stream: scripted moves, bot seats, a bad input
asked again, undo, hint, concede, save and resume, the end of the game and its record."""
from __future__ import annotations

import io
import json
import re
import subprocess
import sys

import pytest

from glory_ai import cli
from glory_ai.arena import load_records, replay
from glory_ai.interactive.records import GameError, check_record
from glory_ai.interactive.screen import Screen
from glory_ai.interactive.seats import seat_seeds, seat_specs, split_specs
from glory_ai.interactive.session import PlaySession, load_session

COMMAND = [sys.executable, "-m", "glory_ai"]


def session(tmp_path, lines, *, players=2, human=0, bots=("random",), seed=3, hint="ismcts:iters=200"):
    out = io.StringIO()
    screen = Screen(out, io.StringIO("".join(line + "\n" for line in lines)), plain=True)
    seats = seat_specs(players, list(bots), human)
    s = PlaySession(num_players=players, mode="republic", variant={}, seed=seed, seats=seats,
                    bot_seeds=seat_seeds(seed, players), human=human, hint_bot=hint,
                    save_path=tmp_path / "save.json", games_path=tmp_path / "games.jsonl", screen=screen)
    return s, out


def test_a_scripted_game_to_the_end_is_recorded(tmp_path):
    s, out = session(tmp_path, ["1"] * 1000, players=3, human=1, bots=("random", "greedy"))
    assert s.run() == 0
    text = out.getvalue()
    assert s.state.is_terminal()
    assert "Final scores" in text and "winner" in text
    assert "The game is over (" in text
    records = load_records(tmp_path / "games.jsonl")
    assert len(records) == 1
    record = records[0]
    assert record["seats"] == ["random", "human", "greedy"]
    assert record["actions"] == s.actions
    final = replay(record)                    # the arena's replay check
    assert final.scores() == record["scores"] == s.state.scores()
    assert record["seat_decisions"][1] == len(s.human_decisions) > 0
    assert not (tmp_path / "save.json").exists()   # a finished game leaves no save behind
    # the bots moved between the person's decisions
    assert all(record["seat_decisions"])


def test_the_report_reads_the_games_file(tmp_path):
    from glory_ai.analysis.load import load_runs

    s, _ = session(tmp_path, ["1"] * 1000, players=2, human=0, bots=("greedy",), seed=8)
    s.run()
    frame = load_runs([tmp_path / "games.jsonl"])
    assert sorted(frame["spec"]) == ["greedy", "human"]
    assert list(frame.sort_values("seat")["score"]) == s.state.scores()


def test_menu_numbers_and_typed_actions_both_play(tmp_path):
    s, out = session(tmp_path, ["think: take Jack", "quit"], players=2, human=0, seed=5)
    assert s.run() == 0
    assert s.state.history()[:1] == s.actions[:1]
    assert "You think and take a Jack." in out.getvalue()


def test_a_bad_input_is_asked_again(tmp_path):
    s, out = session(tmp_path, ["", "xyzzy", "999", "0", "lead Nothing with Nowhere", "1", "quit"])
    s.run()
    text = out.getvalue()
    assert "Not a move here: 'xyzzy'" in text
    assert "There is no choice 999" in text and "There is no choice 0" in text
    assert "Not a move here: 'lead Nothing with Nowhere'" in text
    assert len(s.human_decisions) == 1       # only the "1" was a move
    assert "Traceback" not in text


def test_undo_goes_back_to_the_previous_decision(tmp_path):
    s, out = session(tmp_path, ["1", "2", "undo", "quit"], seed=7)
    s.run()
    # two decisions made, the second taken back: the game is at the person's second decision
    assert len(s.human_decisions) == 1
    first = s.human_decisions[0]
    redo, _ = session(tmp_path, ["1", "quit"], seed=7)
    redo.run()
    assert s.actions == redo.actions            # the bots' replies to decision 1 are kept
    assert s.state.information_state_string(0) == redo.state.information_state_string(0)
    assert "Undone: back to your decision 2" in out.getvalue()
    assert first in redo.human_decisions


def test_undo_at_the_first_decision_says_so(tmp_path):
    s, out = session(tmp_path, ["undo", "quit"])
    s.run()
    assert "Nothing to undo" in out.getvalue()
    assert s.human_decisions == []


def test_hint_shows_the_search_from_the_players_view(tmp_path):
    s, out = session(tmp_path, ["hint 3", "quit"], seed=2)
    s.run()
    text = out.getvalue()
    assert "ismcts:iters=200 for you: 200 iterations" in text
    assert "from your information only" in text
    rows = [line for line in text.splitlines() if line.startswith("   1  ") or line.startswith("   2  ")
            or line.startswith("   3  ")]
    assert len(rows) == 3
    legal = s.state.legal_action_strings()
    assert any(row.split()[1] in " ".join(legal) for row in rows)
    assert "expected result" in text


def test_concede_in_a_two_player_game_ends_it(tmp_path):
    s, out = session(tmp_path, ["help", "1", "concede", "no", "concede", "yes"], seed=4)
    assert s.run() == 0
    text = out.getvalue()
    assert "Not conceded." in text
    # two players: conceding ends the game, no bots play on (the help says so too)
    assert "  concede      leave the game (asks to confirm); the other player wins" in text
    assert "Concede the game? The other player wins. (yes/no)" in text
    assert "play it out" not in text
    assert s.state.end_reason() == "concession" and s.state.winners() == [1]
    record = load_records(tmp_path / "games.jsonl")[0]
    assert record["end_reason"] == "concession"
    assert record["concessions"] == [{"decision": len(record["actions"]), "seat": 0}]
    check_record(record)


def test_concede_in_a_three_player_game_lets_the_bots_finish(tmp_path):
    s, out = session(tmp_path, ["help", "1", "concede", "yes"], players=3, seed=6)
    assert s.run() == 0
    assert ("  concede      leave the game (asks to confirm); the bots will play it out without you"
            in out.getvalue())
    assert s.state.is_terminal() and s.state.has_conceded(0) and 0 not in s.state.winners()
    record = load_records(tmp_path / "games.jsonl")[0]
    final = check_record(record)
    assert final.scores() == record["scores"]
    assert "You concede." in out.getvalue()
    assert "Concede the game? The bots will play it out without you. (yes/no)" in out.getvalue()
    assert "   You concede the game." in s.log.lines


def test_quit_saves_and_resume_goes_on_to_the_same_end(tmp_path):
    s, out = session(tmp_path, ["1", "1", "quit"], seed=9)
    assert s.run() == 0
    assert "Resume it with: glory-ai play --resume" in out.getvalue()
    saved = json.loads((tmp_path / "save.json").read_text())
    assert saved["actions"] == s.actions and len(s.human_decisions) == 2
    # resumed, the game goes on from there to the end
    screen = Screen(io.StringIO(), io.StringIO("1\n" * 1000), plain=True)
    again = load_session(tmp_path / "save.json", screen)
    assert again.actions == s.actions
    assert again.state.information_state_string(0) == s.state.information_state_string(0)
    assert again.run() == 0
    assert again.state.is_terminal()
    # the same moves without a break give the same game
    whole, _ = session(tmp_path / "whole", ["1"] * 1000, seed=9)
    whole.run()
    assert whole.actions == again.actions


def test_a_resumed_game_goes_on_with_the_bots_it_was_saved_with(tmp_path):
    s, _ = session(tmp_path, ["quit"], bots=("ismcts:iters=20",), seed=9)
    assert s.run() == 0
    saved = json.loads((tmp_path / "save.json").read_text())
    assert saved["parameters"]["ismcts:iters=20"]["turnwin"] > 0 and "human" not in saved["parameters"]
    assert load_session(tmp_path / "save.json").bots[1].params["turnwin"] > 0
    # saved before the root win search existed: resumed without it, and saved so again
    for params in saved["parameters"].values():
        del params["turnwin"]
    (tmp_path / "save.json").write_text(json.dumps(saved))
    again = load_session(tmp_path / "save.json")
    assert again.bots[1].params["turnwin"] == 0 and again.bots[1].spec == "ismcts:iters=20,turnwin=0"
    assert again.to_dict()["parameters"]["ismcts:iters=20"]["turnwin"] == 0
    assert again.seats == ["human", "ismcts:iters=20"]          # the table names the spec as written
    saved["parameters"] = ["not", "parameters"]
    (tmp_path / "save.json").write_text(json.dumps(saved))
    with pytest.raises(GameError, match="'parameters' are not"):
        load_session(tmp_path / "save.json")


def test_the_end_of_the_input_saves_the_game(tmp_path):
    s, out = session(tmp_path, ["1"])
    assert s.run() == 0
    assert "Game saved (the input ended)" in out.getvalue()
    assert json.loads((tmp_path / "save.json").read_text())["actions"] == s.actions


def test_help_card_log_and_table(tmp_path):
    s, out = session(tmp_path, ["help", "card Temple", "card Nothing", "log", "table", "quit"])
    s.run()
    text = out.getvalue()
    assert "hint [N]" in text and "undo" in text
    assert "Temple: Marble, role Patron, value 3. Hand refill size +4." in text
    assert "No card named 'Nothing'" in text


def test_split_specs_and_seats():
    assert split_specs("ismcts:time_ms=1000,heuristic:style=builder") == [
        "ismcts:time_ms=1000", "heuristic:style=builder"]
    assert split_specs("ismcts:iters=200,c=0.5,random") == ["ismcts:iters=200,c=0.5", "random"]
    assert seat_specs(3, ["a", "b"], 2) == ["a", "b", "human"]
    assert seat_specs(4, ["a", "b"], None) == ["a", "b", "a", "b"]
    with pytest.raises(ValueError, match="3 bots for 2 seats"):
        seat_specs(3, ["a", "b", "c"], 0)
    with pytest.raises(ValueError, match="unknown bot"):
        split_specs("nobot")


def run(*args, stdin=""):
    return subprocess.run(COMMAND + list(args), input=stdin, capture_output=True, text=True, timeout=300)


def main(monkeypatch, capsys, *args, stdin=""):
    """`glory-ai ARGS` in this process, its input `stdin`: (status, stdout, stderr)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    try:
        code = cli.main(list(args))
    except SystemExit as exc:             # argparse's own refusals
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_command_plays_a_person_through_stdin(tmp_path):
    # a real process: the installed entry point's way in, stdin a pipe
    save, games = tmp_path / "save.json", tmp_path / "games.jsonl"
    result = run("play", "--players", "2", "--bots", "random", "--seat", "1", "--seed", "3",
                 "--save", str(save), "--games", str(games), stdin="1\n1\nquit\n")
    assert result.returncode == 0, result.stderr
    assert "Your choices:" in result.stdout and "\x1b[" not in result.stdout   # plain text: no colour codes
    assert json.loads(save.read_text())["human"] == 1


def test_resume_and_replay_from_the_command_line(tmp_path, monkeypatch, capsys):
    save, games = tmp_path / "save.json", tmp_path / "games.jsonl"
    code, out, err = main(monkeypatch, capsys, "play", "--players", "2", "--bots", "random", "--seat", "1",
                          "--seed", "3", "--save", str(save), "--games", str(games), stdin="1\n1\nquit\n")
    assert code == 0, err
    assert save.exists()
    code, out, err = main(monkeypatch, capsys, "play", "--resume", str(save), stdin="1\n" * 1000)
    assert code == 0, err
    assert "Resuming after" in out and "Final scores" in out
    assert len(load_records(games)) == 1 and not save.exists()
    # the record steps through replay, which shows the recorded final scores
    record = load_records(games)[0]
    code, out, err = main(monkeypatch, capsys, "replay", str(games), "--at", "end")
    assert code == 0, err
    rows = [line.split() for line in out.splitlines() if re.match(r"\s*P\d\s+(random|human)\s+\d", line)]
    assert [int(row[7]) for row in rows] == record["scores"]


@pytest.mark.parametrize("args, words", [
    (["play", "--seat", "7"], ["--seat"]),
    (["play", "--bots", "nobot", "--seat", "0"], ["--bots", "unknown bot"]),
    (["play", "--players", "2", "--bots", "random,random", "--seat", "0"], ["2 bots for 1 seat"]),
    (["play", "--resume", "/nonexistent/save.json"], ["no saved game"]),
    (["play", "--resume", "x.json", "--seed", "3"], ["--resume", "--seed"]),
    (["watch", "--bots", "random", "--as", "P9"], ["--as"]),
])
def test_mistakes_are_one_line(args, words, monkeypatch, capsys):
    code, out, err = main(monkeypatch, capsys, *args)
    assert code == 2, out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for word in words:
        assert word in lines[0]


def test_play_without_a_person_prints_the_game_of_the_bots(tmp_path, monkeypatch, capsys):
    games = tmp_path / "g.jsonl"
    code, out, err = main(monkeypatch, capsys, "play", "--players", "3", "--bots", "greedy,random", "--seed",
                          "4", "--games", str(games))
    assert code == 0, err
    assert "3-player republic game (P0 greedy, P1 random, P2 greedy), seed 4" in out
    record = load_records(games)[0]
    assert record["seats"] == ["greedy", "random", "greedy"]
    replay(record)


def test_watch_shows_every_move_and_the_result(tmp_path, monkeypatch, capsys):
    games = tmp_path / "w.jsonl"
    code, out, err = main(monkeypatch, capsys, "watch", "--bots", "greedy,random", "--delay", "0", "--seed",
                          "2", "--games", str(games))
    assert code == 0, err
    record = load_records(games)[0]
    moves = [line for line in out.splitlines() if re.match(r"P[01] \w+ .*\.$", line)]
    assert len(moves) == len(record["actions"])
    assert "Final scores" in out


def test_watch_as_a_player_names_the_bot_not_you(tmp_path, monkeypatch, capsys):
    # --as P0 shows P0's view of a game between bots: nobody at the table is "you"
    code, out, err = main(monkeypatch, capsys, "watch", "--bots", "greedy,random", "--delay", "0", "--seed",
                          "2", "--as", "P0", "--games", str(tmp_path / "w.jsonl"))
    assert code == 0, err
    assert not re.search(r"\b[Yy]ou(r)?\b", out), [line for line in out.splitlines()
                                                   if re.search(r"\b[Yy]ou(r)?\b", line)][:5]
    assert re.search(r"^P0 \w+ ", out, re.M)


def test_a_watched_bots_view_is_drawn_without_you():
    from glory_ai import Game
    from glory_ai.interactive.screen import render_view
    from glory_ai.interactive.view import table_view

    state = Game(2).new_initial_state(5)
    for you, marks in ((True, ("(you)", "Your hand")), (False, ("P0's hand",))):
        out = io.StringIO()
        Screen(out, io.StringIO(), plain=True).show(
            render_view(table_view(state, 0, names=["greedy", "random"], you=you), [], plain=True))
        text = out.getvalue()
        for mark in marks:
            assert mark in text, (you, mark)
        if not you:
            assert not re.search(r"\b[Yy]ou(r)?\b", text), text


def test_watch_into_a_pipe_does_not_pause_between_moves(tmp_path, monkeypatch, capsys):
    import glory_ai.interactive.watch as watch_module

    pauses = []
    monkeypatch.setattr(watch_module.time, "sleep", pauses.append)
    code, out, err = main(monkeypatch, capsys, "watch", "--bots", "greedy,random", "--seed", "2",
                          "--games", str(tmp_path / "w.jsonl"))
    assert code == 0, err
    assert "Final scores" in out and pauses == []
    code, out, err = main(monkeypatch, capsys, "watch", "--bots", "greedy,random", "--seed", "2",
                          "--delay", "0.25", "--games", str(tmp_path / "w.jsonl"))
    assert code == 0 and pauses and set(pauses) == {0.25}
