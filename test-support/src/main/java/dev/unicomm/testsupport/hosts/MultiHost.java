package dev.unicomm.testsupport.hosts;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test class whose tests run on a {@link TestBed} of {@link #hosts()} hosts, made before the first
 * test and removed after the last (tag {@code multi-host}). Tests take the bed as a parameter. Skipped,
 * with the reason, where no bed can be made (not root, not Linux, tools missing).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("multi-host")
@ExtendWith(MultiHostExtension.class)
public @interface MultiHost {
    /** Number of hosts. */
    int hosts() default 2;

    /** Most seconds the bed may live (a hang guard: the bed goes even if the JVM is killed). */
    int ttlSeconds() default 600;
}
