package dev.unicomm.launch;

import dev.unicomm.api.Capability;
import dev.unicomm.api.CommConfig;
import dev.unicomm.api.CommException;
import dev.unicomm.api.Unicomm;
import dev.unicomm.spi.Availability;
import dev.unicomm.spi.BackendCommunicator;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.BackendRegistry;
import dev.unicomm.spi.CommBackendProvider;
import java.util.List;
import java.util.Set;

/**
 * A rank for {@link BackendAgreementTest}. Two test backends: {@code alpha} (preferred) is available
 * only on the rank named by {@code -Dagreement.alphaRank} (every rank when it is {@code all}),
 * {@code beta} everywhere. Opening either one meets the other ranks, then reports that it was reached.
 */
public final class AgreementRank {
    private AgreementRank() {}

    record TestProvider(String name, int priority, boolean here) implements CommBackendProvider {
        @Override
        public Set<Capability> capabilities() {
            return Set.of(Capability.RMA);
        }

        @Override
        public Availability availability() {
            return here ? Availability.yes() : Availability.no("test backend switched off on this rank", "none");
        }

        @Override
        public BackendCommunicator open(BackendContext context) {
            context.store()
                    .barrier("test-open"); // an open is collective: it waits for every rank, like a real backend's
            throw new IllegalStateException("reached open of " + name);
        }
    }

    public static void main(String[] args) {
        CommConfig config = CommConfig.fromEnvironment();
        String alphaRank = System.getProperty("agreement.alphaRank", "all");
        boolean alpha = alphaRank.equals("all") || Integer.parseInt(alphaRank) == config.rank();
        BackendRegistry registry =
                BackendRegistry.of(List.of(new TestProvider("alpha", 50, alpha), new TestProvider("beta", 10, true)));
        try {
            Unicomm.connect(config, registry).close();
        } catch (IllegalStateException e) {
            System.out.println("rank " + config.rank() + ": " + e.getMessage());
            System.exit(4);
        } catch (CommException e) {
            System.out.println("rank " + config.rank() + " failed: " + e.getMessage());
            System.exit(3);
        }
    }
}
