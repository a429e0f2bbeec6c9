package dev.unicomm.internal.rendezvous;

import dev.unicomm.api.CommConfig;
import dev.unicomm.api.CommException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS for the rendezvous store. A job uses one PKCS12 keystore holding one self-signed key pair:
 * it is both every rank's identity and the only certificate trusted (mutual TLS with a per-job
 * pinned certificate, so host names are not checked). The keystore and its password come from
 * {@code unicomm.tls.keystore} / {@code unicomm.tls.password} (or {@code UNICOMM_TLS_KEYSTORE} /
 * {@code UNICOMM_TLS_PASSWORD}); {@code unicomm run --tls} creates them per job.
 */
public final class StoreTls {
    private StoreTls() {}

    /** Property naming the PKCS12 keystore file. */
    public static final String KEYSTORE_PROPERTY = "unicomm.tls.keystore";
    /** Property holding the keystore password. */
    public static final String PASSWORD_PROPERTY = "unicomm.tls.password";

    /**
     * The keystore value {@code unicomm run} gives its ranks: the keystore itself came through the
     * launcher's pipe and lives only in memory, so no key file can outlive the job.
     */
    public static final String FROM_LAUNCHER = "unicomm-run:in-memory";

    private static volatile byte[] launcherKeystore;

    /** Keeps the keystore the launcher handed this rank (see {@link #FROM_LAUNCHER}). */
    public static void useLauncherKeystore(byte[] pkcs12) {
        launcherKeystore = pkcs12.clone();
    }

    /** The TLS context that {@code config} describes. */
    public static SSLContext fromConfig(CommConfig config) {
        String file = config.property(KEYSTORE_PROPERTY, null);
        String password = config.property(PASSWORD_PROPERTY, null);
        if (file == null || file.isBlank() || password == null)
            throw new IllegalArgumentException("TLS for the rendezvous store is on (UNICOMM_TLS=true) but "
                    + (file == null || file.isBlank()
                            ? "no keystore is set (UNICOMM_TLS_KEYSTORE / -Dunicomm.tls.keystore)"
                            : "no keystore password is set (UNICOMM_TLS_PASSWORD / -Dunicomm.tls.password)")
                    + "; 'unicomm run --tls' sets both, or create one with StoreTls.createSelfSignedKeystore");
        if (file.equals(FROM_LAUNCHER)) {
            byte[] held = launcherKeystore;
            if (held == null)
                throw new IllegalArgumentException(
                        "UNICOMM_TLS_KEYSTORE=" + FROM_LAUNCHER + " means the keystore comes from "
                                + "'unicomm run' through the rank's standard input, but this process did not get one: start it with "
                                + "'unicomm run --tls', or point UNICOMM_TLS_KEYSTORE at a PKCS12 file");
            return context(held, password.toCharArray(), "handed over by unicomm run");
        }
        Path keystore = Path.of(file);
        if (!Files.isReadable(keystore))
            throw new IllegalArgumentException("TLS keystore " + keystore + " does not exist or is not readable");
        return context(keystore, password.toCharArray());
    }

    /** A TLS 1.3 context whose key and only trusted certificate come from the PKCS12 {@code keystore}. */
    public static SSLContext context(Path keystore, char[] password) {
        if (!Files.isReadable(keystore))
            throw new IllegalArgumentException("TLS keystore " + keystore + " does not exist or is not readable");
        try {
            return context(Files.readAllBytes(keystore), password, keystore.toString());
        } catch (IOException e) {
            throw new CommException("cannot read TLS keystore " + keystore + ": " + e.getMessage(), e);
        }
    }

    private static SSLContext context(byte[] pkcs12, char[] password, String source) {
        try (InputStream in = new java.io.ByteArrayInputStream(pkcs12)) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, password);
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, password);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ks);
            SSLContext ctx = SSLContext.getInstance("TLSv1.3");
            ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return ctx;
        } catch (IOException | GeneralSecurityException e) {
            throw new CommException(
                    "cannot load TLS keystore " + source + " (PKCS12, password from UNICOMM_TLS_PASSWORD): "
                            + e.getMessage(),
                    e);
        }
    }

    /**
     * Creates a PKCS12 keystore at {@code file} (which must not exist, and is created owner-only)
     * holding a fresh self-signed EC P-256 key pair valid for two days ({@link #createSelfSignedKeystore(char[])}).
     */
    public static void createSelfSignedKeystore(Path file, char[] password) {
        if (password.length < 6)
            throw new IllegalArgumentException("keystore password must have at least 6 characters");
        if (Files.exists(file)) throw new IllegalArgumentException("keystore " + file + " already exists");
        byte[] pkcs12 = createSelfSignedKeystore(password);
        try {
            try {
                Files.createFile(
                        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (UnsupportedOperationException e) {
                Files.createFile(file); // not a POSIX file system: default permissions
            }
            Files.write(file, pkcs12);
        } catch (IOException e) {
            throw new CommException("cannot write TLS keystore " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * A PKCS12 keystore, in memory only, holding a fresh self-signed EC P-256 key pair valid for two
     * days (CN=unicomm job, SAN localhost and 127.0.0.1). No file and no keytool process: a launcher
     * killed at any moment leaves no key behind.
     */
    public static byte[] createSelfSignedKeystore(char[] password) {
        if (password.length < 6)
            throw new IllegalArgumentException("keystore password must have at least 6 characters");
        try {
            KeyPairGenerator gen = KeyPairGenerator.getInstance("EC");
            gen.initialize(new ECGenParameterSpec("secp256r1"));
            KeyPair pair = gen.generateKeyPair();
            Certificate cert = SelfSignedCertificate.create(pair, Duration.ofDays(2));
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            ks.setKeyEntry("unicomm-job", pair.getPrivate(), password, new Certificate[] {cert});
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ks.store(out, password);
            return out.toByteArray();
        } catch (IOException | GeneralSecurityException e) {
            throw new CommException("cannot create the job's TLS key pair: " + e.getMessage(), e);
        }
    }

    /** A self-signed X.509 v3 certificate, DER-encoded by hand (the JDK has no public API that builds one). */
    private static final class SelfSignedCertificate {
        private static final byte[] ECDSA_SHA256 = oid(1, 2, 840, 10045, 4, 3, 2);
        private static final byte[] COMMON_NAME = oid(2, 5, 4, 3);
        private static final byte[] SUBJECT_ALT_NAME = oid(2, 5, 29, 17);

        static Certificate create(KeyPair pair, Duration validity) throws GeneralSecurityException, IOException {
            byte[] serial = new byte[16];
            new java.security.SecureRandom().nextBytes(serial);
            serial[0] &= 0x7f; // a positive INTEGER
            byte[] algorithm = seq(ECDSA_SHA256);
            byte[] name = seq(tlv(
                    0x31,
                    seq(COMMON_NAME, tlv(0x0c, "unicomm job".getBytes(java.nio.charset.StandardCharsets.UTF_8)))));
            java.time.Instant now = java.time.Instant.now();
            byte[] valid = seq(utcTime(now.minus(Duration.ofMinutes(5))), utcTime(now.plus(validity)));
            byte[] altNames = seq(
                    tlv(0x82, "localhost".getBytes(java.nio.charset.StandardCharsets.US_ASCII)),
                    tlv(0x87, new byte[] {127, 0, 0, 1}));
            byte[] extensions = tlv(0xa3, seq(seq(SUBJECT_ALT_NAME, tlv(0x04, altNames))));
            byte[] tbs = seq(
                    tlv(0xa0, tlv(0x02, new byte[] {2})),
                    tlv(0x02, serial),
                    algorithm,
                    name,
                    valid,
                    name,
                    pair.getPublic().getEncoded(),
                    extensions);
            java.security.Signature signer = java.security.Signature.getInstance("SHA256withECDSA");
            signer.initSign(pair.getPrivate());
            signer.update(tbs);
            byte[] signature = signer.sign();
            byte[] bits = new byte[signature.length + 1]; // BIT STRING: no unused bits
            System.arraycopy(signature, 0, bits, 1, signature.length);
            byte[] der = seq(tbs, algorithm, tlv(0x03, bits));
            return java.security.cert.CertificateFactory.getInstance("X.509")
                    .generateCertificate(new java.io.ByteArrayInputStream(der));
        }

        private static byte[] utcTime(java.time.Instant t) {
            String s = java.time.format.DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'")
                    .withZone(java.time.ZoneOffset.UTC)
                    .format(t);
            return tlv(0x17, s.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        }

        private static byte[] oid(int first, int second, int... rest) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            b.write(40 * first + second);
            for (int v : rest) {
                int shift = 28;
                while (shift > 0 && (v >>> shift) == 0) shift -= 7;
                for (; shift > 0; shift -= 7) b.write(0x80 | ((v >>> shift) & 0x7f));
                b.write(v & 0x7f);
            }
            return tlv(0x06, b.toByteArray());
        }

        private static byte[] seq(byte[]... parts) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            for (byte[] p : parts) b.writeBytes(p);
            return tlv(0x30, b.toByteArray());
        }

        /** Tag, definite length (short or long form), value. */
        private static byte[] tlv(int tag, byte[] value) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            b.write(tag);
            int n = value.length;
            if (n < 0x80) {
                b.write(n);
            } else {
                int bytes = n > 0xffffff ? 4 : n > 0xffff ? 3 : n > 0xff ? 2 : 1;
                b.write(0x80 | bytes);
                for (int i = bytes - 1; i >= 0; i--) b.write(n >>> (8 * i));
            }
            b.writeBytes(value);
            return b.toByteArray();
        }
    }
}
