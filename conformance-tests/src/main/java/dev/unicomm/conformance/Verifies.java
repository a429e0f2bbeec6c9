package dev.unicomm.conformance;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The clause of {@code docs/spec/semantics.md} a rule verifies (for example {@code "2.3"}); the report
 * prints it next to the rule, and the kit's own tests fail while a rule has none.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Verifies {
    /** The clause number, without the section sign. */
    String value();
}
