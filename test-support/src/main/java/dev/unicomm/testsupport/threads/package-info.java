/**
 * A job of threads in one JVM over plain memory ({@code ThreadWorld}, {@code ThreadComm}), for tests of the
 * portable algorithms without processes. Test scope only: no main code may depend on it.
 */
package dev.unicomm.testsupport.threads;
