"""mn check answers from what the asking side may know: another side's face-down offer is never shown,
and twin games that differ only in it give the same answer, byte for byte (2.1; classic 3.2.2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mncli.cli import main


def mn(db: Path, *args: str) -> str:
    """The command's output; every call here is meant to succeed."""
    result = CliRunner().invoke(main, ["--db", str(db), *args])
    assert result.exit_code == 0, (args, result.output)
    return result.stdout

REPRO = ("order", "G", "--as", "carthage", "trade 3"), ("order", "G", "--as", "rome", "offer {rome}"), \
    ("order", "G", "--as", "carthage", "offer {carthage}")


def _empires(db: Path, rome: str, carthage: str) -> Path:
    """The reproduction of issue 23: Rome and Carthage have offered face down; Greece offers last."""
    mn(db, "new", "--empire", "rome", "--empire", "greece", "--empire", "carthage", "--seed", "leak",
       "--id", "G")
    for args in REPRO:
        mn(db, *(a.format(rome=rome, carthage=carthage) for a in args))
    return db


def test_2_1_check_of_the_last_offer_shows_no_other_empires_offer(tmp_path: Path) -> None:
    """Greece asks whether its offer would be accepted: the offers would then be flipped, but the
    answer shows Greece's own only, and says the others are not shown (2.1: face down until all are in)."""
    db = _empires(tmp_path / "g.db", "grain grain wine", "gold sheep spices")

    out = mn(db, "check", "G", "--as", "greece", "offer coin coin coin")

    assert out == (
        "Accepted: 'offer coin coin coin' would cause 2 event(s):\n"
        "  Greece offered 3 Coin face down.\n"
        "  The offers are revealed: Greece: 3 Coin (what it would turn face up of others' hidden facts "
        "is not shown).\n")
    doc = json.loads(mn(db, "check", "G", "--as", "greece", "offer coin coin coin", "--json"))
    assert doc["events"][1]["event"]["offers"] == {"carthage": {"hidden": True}, "greece": {"coin": 3},
                                                   "rome": {"hidden": True}}


@pytest.mark.parametrize("rome,carthage", [("grain grain wine", "oil oil sheep"),
                                           ("metal oil wine", "gold sheep spices")])
def test_2_1_twins_differing_in_an_offer_give_greece_the_same_check(tmp_path: Path, rome: str,
                                                                   carthage: str) -> None:
    """Twin games that differ only in Rome's or Carthage's face-down offer answer Greece's `mn check`
    (text and JSON, one order and a batch) byte for byte alike."""
    a = _empires(tmp_path / "a.db", "grain grain wine", "gold sheep spices")
    b = _empires(tmp_path / "b.db", rome, carthage)
    for args in (["offer coin coin coin"], ["offer coin coin coin", "--json"],
                 ["offer coin coin coin", "queue done"], ["offer coin coin metal", "--json"]):
        assert mn(a, "check", "G", "--as", "greece", *args) == mn(b, "check", "G", "--as", "greece", *args)


def test_3_2_2_classic_check_of_the_last_offer_shows_no_other_civilisations_cards(tmp_path: Path) -> None:
    """In the 2003 game the cards are face down until every trader offered (3.2.2): Carthage, offering
    last, is told only its own cards would turn up, whatever Rome and Greece offered."""
    outs = []
    for name, rome in (("a", "offer tax wine"), ("b", "offer oil wine")):
        db = tmp_path / f"{name}.db"
        mn(db, "new", "--ruleset", "classic", "--empire", "rome", "--empire", "greece", "--empire", "carthage",
           "--seed", "twin", "--id", "t")
        for side, order in (("carthage", "ask 2"), ("rome", rome), ("greece", "offer metal oil")):
            mn(db, "order", "t", "--as", side, order)
        outs.append((mn(db, "check", "t", "--as", "carthage", "offer ivory oil"),
                     mn(db, "check", "t", "--as", "carthage", "offer ivory oil", "--json")))
    assert outs[0] == outs[1]
    assert outs[0][0] == (
        "Accepted: 'offer ivory oil' would cause 2 event(s):\n"
        "  Carthage offered ivory, oil face down\n"
        "  Offers turned face up: Carthage ivory, oil (what it would turn face up of others' hidden facts "
        "is not shown)\n")
