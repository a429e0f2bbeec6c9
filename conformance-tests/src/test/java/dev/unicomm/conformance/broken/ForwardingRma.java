package dev.unicomm.conformance.broken;

import dev.unicomm.api.Rma;
import dev.unicomm.testsupport.SignalPutRma;

/**
 * The SPI's forwarding base (both put-with-signal calls at one method: {@link SignalPutRma}), with the real backend's
 * RMA at hand as {@code raw} for the broken decorators.
 */
class ForwardingRma extends SignalPutRma {
    final Rma raw;

    ForwardingRma(Rma raw) {
        super(raw);
        this.raw = raw;
    }
}
