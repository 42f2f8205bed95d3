# Which JSON-data test files the trusted runner knows how to mirror, by the SHA-256 of the test
# file with the program's name replaced by "{p}". Each rule says what the test does with the
# data before its assert, so that the trusted grade asks exactly what pytest asks. A test file
# that matches no rule is never guessed at: the program is reported "untranscribed".
# Static text owned by the project (trusted); it runs only in `prepare` mode, never beside a
# program under test.

# `assert f(*input_data) == expected` (25 upstream programs).
GENERIC = "045694ec8a00348b7ae44d10a44a9a7478cb277bbab49b668bc915a942b5f552"
# `assert list(f(*input_data)) == expected` (flatten, kheapsort: generators).
LIST_OF_RESULT = "9dfe963425e7fcc5ae72bcab4ab3fd6dab6cf650e185372598f0055d642a24e5"
# hanoi: the expected steps become tuples before `==`.
HANOI = "d2e4f8a8d749c3c70531a79ef43e7d6d518efd86809671a29ea250a288c6b1e9"
# knapsack: one case is skipped unless --runslow.
KNAPSACK = "2b2d85f6e1468cbc89f1f5b8e4d117ef6febdc734725dcea8e6d788bf671dd6c"
# levenshtein: one case is always skipped upstream ("Takes too long to pass!").
LEVENSHTEIN = "404a4a545a961bc5e7d41da906fbdc50028dce0ffbdd9375d00f74d7354522bd"
# sqrt: `== pytest.approx(expected, abs=input_data[-1])` (absolute tolerance only).
SQRT = "71176a7e3acac48c780f2a2137fefce372bebf68db3256b38864a424d09bffec"
# The project's own small data set (test/fixtures/quixbugs-mini): the generic assert written
# as `@pytest.mark.parametrize("arguments,expected", load_json_testcases("{p}"))`.
MINI_GENERIC = "5c730adc00a1833023e832873e2626835451ea642ae6c7fa11d4847603a73053"

KNAPSACK_SLOW_CAPACITY = 6404180
LEVENSHTEIN_SKIPPED = ["amanaplanacanalpanama", "docnoteidissentafastneverpreventsafatnessidietoncod"]


def json_rules(template_hash):
    if template_hash in (GENERIC, MINI_GENERIC):
        return {}
    if template_hash == LIST_OF_RESULT:
        return {"adapter": "list"}
    if template_hash == HANOI:
        return {"expected": lambda out: [tuple(x) for x in out]}
    if template_hash == KNAPSACK:
        return {"skip": lambda args, slow: None if slow or args[0] != KNAPSACK_SLOW_CAPACITY else "slow case (run with --include-slow)"}
    if template_hash == LEVENSHTEIN:
        return {"skip": lambda args, slow: "skipped upstream (takes too long)" if args == LEVENSHTEIN_SKIPPED else None}
    if template_hash == SQRT:
        # The result is written with its class ("approx_number": approx compares by class).
        return {"adapter": "approx_number",
                "compare": lambda args: {"kind": "approx_abs", "tolerance": repr(float(args[-1]))}}
    return None
