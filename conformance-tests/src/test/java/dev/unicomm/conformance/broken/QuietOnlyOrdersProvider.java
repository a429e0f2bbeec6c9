package dev.unicomm.conformance.broken;

import dev.unicomm.api.Rma;

/**
 * Broken on purpose: puts are delivered later, in issue order, by a background thread, and quiet
 * returns at once. Ordering holds (fence rules pass); completion does not (quiet rules must fail).
 */
public final class QuietOnlyOrdersProvider extends DecoratedProvider {
    public static final String NAME = "shm-quiet-only-orders";

    public QuietOnlyOrdersProvider() {
        super(NAME, Background::new, true);
    }

    static final class Background extends DeferredPuts {
        Background(Rma raw) {
            super(raw);
            Thread.ofPlatform().daemon().name("late-put-delivery").start(this::deliverForever);
        }

        private void deliverForever() {
            try {
                while (true) {
                    awaitWork(1000);
                    Thread.sleep(50); // late: after quiet has returned
                    deliverAll();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void quiet() {
            // the bug: orders (delivery is in issue order anyway) but does not wait for delivery
        }
    }
}
