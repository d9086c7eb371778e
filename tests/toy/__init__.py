"""A toy game on the kernel, two sides on a three-province board: the smallest Ruleset there is."""

from toy.seam import RULESET as RULESET
