package dev.unicomm.testsupport.hosts;

import java.time.Duration;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/** Makes and removes the {@link TestBed} of a {@link MultiHost} class, and hands it to its tests. */
public final class MultiHostExtension
        implements ExecutionCondition, BeforeAllCallback, AfterAllCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(MultiHostExtension.class);

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        return TestBed.unavailableReason()
                .map(ConditionEvaluationResult::disabled)
                .orElse(ConditionEvaluationResult.enabled("a multi-host test bed can be made here"));
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        MultiHost spec = context.getRequiredTestClass().getAnnotation(MultiHost.class);
        int hosts = spec == null ? 2 : spec.hosts();
        int ttl = spec == null ? 600 : spec.ttlSeconds();
        context.getStore(NS).put(TestBed.class, TestBed.up(hosts, Duration.ofSeconds(ttl)));
    }

    @Override
    public void afterAll(ExtensionContext context) {
        TestBed bed = context.getStore(NS).remove(TestBed.class, TestBed.class);
        if (bed != null) bed.close();
    }

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
        return p.getParameter().getType() == TestBed.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext e) {
        TestBed bed = e.getStore(NS).get(TestBed.class, TestBed.class);
        if (bed == null) throw new IllegalStateException("no test bed: the class must be annotated @MultiHost");
        return bed;
    }
}
