from benchsmith.generation.mutants import mutants

METHOD = "int f(int a, int b) {\n    int c = a + 1;\n    if (a < b && c != 0) { return a; }\n    return b;\n}"


def test_mutants_are_distinct_deterministic_and_change_one_thing():
    first = mutants(METHOD, 20, seed=3)
    assert first == mutants(METHOD, 20, seed=3)
    assert len(first) == len(set(first)) > 5
    assert METHOD not in first
    assert "int c = a - 1;" in "\n".join(first) or "int c = a + 2;" in "\n".join(first)
    assert all(m.startswith("int f(int a, int b) {") for m in first)


def test_unparsable_code_has_no_mutants():
    assert mutants('int f() { return "unterminated; }', 5) == []
