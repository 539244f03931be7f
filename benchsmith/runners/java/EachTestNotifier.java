package org.junit.internal.runners.model;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.junit.internal.AssumptionViolatedException;
import org.junit.runner.Description;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunNotifier;
import org.junit.runners.model.MultipleFailureException;

/**
 * JUnit 4's EachTestNotifier, as benchsmith's test JVMs run it: ahead of every JUnit jar on their class path, it
 * replaces JUnit's own (4.5 to 4.13 share its API; the suite methods, 4.13's, are only called by 4.13).
 *
 * <p>JUnit reports a test that threw a MultipleFailureException as one failure per exception the MFE lists, and as
 * passed when it lists none: a candidate that throws an MFE whose getFailures() is empty (an override, or a List whose
 * isEmpty() lies to the constructor) had every test that called it reported passed by JUnit itself, whatever the
 * confinement kept from it (red team round 8). When getFailures() threw, the test was reported passed too (its
 * finished event came before the exception reached the class). Here a test whose MFE lists no failure, cannot list
 * them, or nests them deeper than {@link #DEPTH} (or in a cycle) fails, under its own name.
 */
public class EachTestNotifier {
    private static final int DEPTH = 8;

    private final RunNotifier notifier;
    private final Description description;

    public EachTestNotifier(RunNotifier notifier, Description description) {
        this.notifier = notifier;
        this.description = description;
    }

    public void addFailure(Throwable targetException) {
        add(targetException, 0, new IdentityHashMap<Throwable, Boolean>());
    }

    private void add(Throwable failure, int depth, Map<Throwable, Boolean> seen) {
        if (!(failure instanceof MultipleFailureException)) {
            notifier.fireTestFailure(new Failure(description, failure != null ? failure
                    : new AssertionError("benchsmith: a MultipleFailureException listed null")));
            return;
        }
        List<Throwable> failures = new ArrayList<Throwable>();
        String broken = null;
        if (depth >= DEPTH || seen.put(failure, Boolean.TRUE) != null) {
            broken = "nests its failures too deep or in a cycle";
        } else {
            try {
                for (Throwable each : ((MultipleFailureException) failure).getFailures()) failures.add(each);
                if (failures.isEmpty()) broken = "lists no failure";
            } catch (Throwable t) {  // its getFailures() or its list is the candidate's: getClass() is final
                broken = "could not list its failures (" + t.getClass().getName() + ")";
            }
        }
        if (broken != null) {
            notifier.fireTestFailure(new Failure(description, new AssertionError(
                    "benchsmith: a " + failure.getClass().getName() + " that " + broken)));
            return;
        }
        for (Throwable each : failures) add(each, depth + 1, seen);
    }

    public void addFailedAssumption(AssumptionViolatedException e) {
        notifier.fireTestAssumptionFailed(new Failure(description, e));
    }

    public void fireTestFinished() {
        notifier.fireTestFinished(description);
    }

    public void fireTestStarted() {
        notifier.fireTestStarted(description);
    }

    public void fireTestIgnored() {
        notifier.fireTestIgnored(description);
    }

    public void fireTestSuiteStarted() {
        notifier.fireTestSuiteStarted(description);
    }

    public void fireTestSuiteFinished() {
        notifier.fireTestSuiteFinished(description);
    }
}
