package dev.unicomm.testsupport.hosts;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** {@code EchoOnce listen ADDR PORT} answers one connection with its own hostname; {@code EchoOnce ask ADDR PORT} prints the answer. */
public final class EchoOnce {
    public static void main(String[] args) throws IOException {
        InetSocketAddress at = new InetSocketAddress(args[1], Integer.parseInt(args[2]));
        if (args[0].equals("listen")) {
            try (ServerSocket s = new ServerSocket()) {
                s.setSoTimeout(20_000);
                s.bind(at);
                System.out.println("listening");
                try (Socket c = s.accept()) {
                    c.getOutputStream()
                            .write((java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/kernel/hostname"))
                                                    .strip()
                                            + " saw " + c.getInetAddress().getHostAddress() + "\n")
                                    .getBytes(StandardCharsets.UTF_8));
                }
            }
        } else {
            for (int attempt = 0; ; attempt++) {
                try (Socket c = new Socket()) {
                    c.connect(at, 2_000);
                    System.out.print(new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
                    return;
                } catch (IOException e) {
                    if (attempt >= 50) throw e; // the listener may still be starting: 50 x 100 ms at most
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException i) {
                        return;
                    }
                }
            }
        }
    }
}
