/**
 * Small programs that show the API ({@code Ring}: the README's ring). They depend on {@code dev.unicomm.api}
 * only, as a user's program would; nothing may depend on them.
 */
package dev.unicomm.examples;
