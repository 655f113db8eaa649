"""Vela: flags checked where they enter, refusals as one sentence, its printed report parsed."""
