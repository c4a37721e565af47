package dev.outbox.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;

/** Loopback port helpers: every server this project starts binds to 127.0.0.1. */
public final class Ports {

    private Ports() {}

    public static int free() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static boolean isListening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 300);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    public static void awaitListening(int port, Duration timeout) {
        await(port, true, timeout);
    }

    public static void awaitClosed(int port, Duration timeout) {
        await(port, false, timeout);
    }

    private static void await(int port, boolean listening, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (isListening(port) != listening) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("port " + port + (listening ? " never opened" : " never closed"));
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }
}
