package dev.unicomm.conformance;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Marks a configured suite that {@code unicomm conformance} runs only when asked for by name (see {@link KitSuites}). */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface OnlyWhenNamed {
    /** Why it is not in the default run. */
    String value();
}
