package dev.unicomm.backend.shm;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.Unicomm;

/** A rank that connects, prints one line (its topology, or the error's message and type) and exits (3 on error). */
public final class ConnectOnce {
    public static void main(String[] args) {
        try (Communicator c = Unicomm.connect()) {
            System.out.println("CONNECTED rank " + c.rank() + " on " + c.topology());
        } catch (RuntimeException e) {
            System.out.println("FAILED " + e.getClass().getSimpleName() + ": " + e.getMessage()
                    + (e.getCause() == null ? "" : " [cause " + e.getCause() + "]"));
            System.exit(3);
        }
    }
}
