"""The candidate's classes lie in one folder with the project's, as a build has them: tests that make class loaders
from a project class's code source (Mockito's ClassLoaders.withCodeSourceUrlOf, NoJUnitDependenciesTest listing
every class there) find the class under repair too."""

import dataclasses

import pytest

from tests.harness.conftest import statuses_on_both_paths, workspace_with_test_class

pytestmark = pytest.mark.java  # runs JVMs: needs a JDK, JUnit 4 and the sandbox

CODE_SOURCE = """package org.benchsmith.ledger;
import java.net.URL;
import java.net.URLClassLoader;
public class CodeSourceTest {
    @org.junit.Test public void theClassUnderRepairLiesBesideTheOthers() throws Exception {
        String other = "org/benchsmith/ledger/Amount.class";
        String url = CodeSourceTest.class.getClassLoader().getResource(other).toString();
        URL folder = new URL(url.substring(0, url.length() - other.length()));
        Class.forName("org.benchsmith.ledger.TextUtils", false, new URLClassLoader(new URL[] {folder}, null));
    }
}
"""


def test_the_class_under_repair_lies_in_the_project_s_class_folder(ledger_instances, ledger_workspace, tmp_path):
    original = ledger_instances["Ledger-1"]
    assert original.file_path.endswith("/TextUtils.java")  # the class the test looks for beside Amount
    workspace = workspace_with_test_class(ledger_workspace("Ledger-1"), CODE_SOURCE)
    instance = dataclasses.replace(
        original, relevant_tests=[*original.relevant_tests, "org.benchsmith.ledger.CodeSourceTest"]
    )
    statuses = statuses_on_both_paths(instance, workspace, tmp_path / "logs", {"gold": instance.fixed_method})
    assert statuses == {"gold@fast": "plausible", "gold@plain": "plausible"}
