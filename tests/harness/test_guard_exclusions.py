"""Test methods that install a security manager of their own cannot run under the runner's guard: left out."""

from benchsmith.runners.java.defects4j_workspace import Workspace, guard_forbidden_tests
from tests.helpers.records import make_instance


def test_a_test_method_that_installs_a_security_manager_is_left_out(tmp_path):
    folder = tmp_path / "tree" / "src" / "test" / "java" / "org" / "demo"
    folder.mkdir(parents=True)
    (folder / "AccessFixTest.java").write_text("""package org.demo;
public class AccessFixTest extends junit.framework.TestCase {
    public void testCauseOfThrowableIgnoral() throws Exception {
        SecurityManager origSecMan = System.getSecurityManager();
        try {
            System.setSecurityManager(new CauseBlockingSecurityManager());
        } finally {
            System.setSecurityManager(origSecMan);
        }
    }
    public void testPlain() { assertTrue(true); }
    static class CauseBlockingSecurityManager extends SecurityManager { }
}
""")
    (folder / "OtherTest.java").write_text("package org.demo;\npublic class OtherTest { public void testIt() {} }\n")
    workspace = Workspace(tmp_path, "src/main/java", "src/test/java", "UTF-8", "UTF-8", (), ())
    instance = make_instance(trigger_tests=["org.demo.OtherTest::testIt"], relevant_tests=["org.demo.AccessFixTest"])
    assert guard_forbidden_tests(workspace, instance) == ["org.demo.AccessFixTest::testCauseOfThrowableIgnoral"]


def test_a_class_whose_every_test_installs_one_is_left_out_whole(tmp_path):
    from benchsmith.runners.java.method_runner import Tests

    folder = tmp_path / "tree" / "src" / "test" / "java" / "org" / "demo"
    folder.mkdir(parents=True)
    (folder / "OnlyTest.java").write_text("""package org.demo;
public class OnlyTest {
    @org.junit.Test public void guarded() { System.setSecurityManager(null); }
    private void helper() { }
}
""")
    workspace = Workspace(tmp_path, "src/main/java", "src/test/java", "UTF-8", "UTF-8", (), ())
    instance = make_instance(
        trigger_tests=["org.demo.OtherTest::testIt"], relevant_tests=["org.demo.OnlyTest", "org.demo.B"]
    )
    excluded = guard_forbidden_tests(workspace, instance)
    assert excluded == ["org.demo.OnlyTest::guarded", "org.demo.OnlyTest::*"]
    tests = Tests.for_instance(instance, ["x.Y::z", *excluded])
    assert tests.relevant == ["org.demo.B"] and tests.excluded == ("x.Y::z", "org.demo.OnlyTest::guarded")
