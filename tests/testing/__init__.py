"""Tests of xworkmate.testing: the tester's pytest plugin, its fixtures and WindowDriver (issue 21)."""
