// judge-ci's sealed test oracle (spec/trust.md point 17). judge-ci compiles this file into a
// folder of its own and runs it in a JVM of its own on the compiled tests: the JUnit Platform
// launcher runs the classes judge-ci names with the engines judge-ci names (JUnit 5 through
// Jupiter, JUnit 4 through Vintage; no engine a service file on the class path registers),
// with every auto-registered listener, filter and extension switched off and no configuration
// but judge-ci's and the trusted tests' own junit-platform.properties (none from the class
// path the subject's classes are on, none from system properties), and this listener
// streams each test's start and end to judge-ci on descriptor 3 (a pipe judge-ci owns; the
// tests' own output goes to standard output and error as usual), each line prefixed with a
// nonce judge-ci wrote on standard input. A line without the nonce is ignored by judge-ci; a
// test judge-ci expects that no line reports finishing is a failure, so a halted or killed JVM
// proves nothing. judge-ci starts this JVM with /proc hidden (Landlock), without the modules
// that read the JVM's own memory or attach to it (jdk.unsupported's Unsafe, jdk.management's
// heap dumps, jdk.attach, JFR, ...) and with the attach mechanism off: the code under test
// cannot read the nonce back. Its folders the code under test could write are mounted noexec
// (no native library it wrote loads) and it has no network (docs/test-oracle.md says what
// stays possible).
import java.io.ByteArrayInputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Properties;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherConfig;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.jupiter.engine.JupiterTestEngine;
import org.junit.vintage.engine.VintageTestEngine;

public final class JudgeCiOracle {
    private JudgeCiOracle() {}

    private static String clean(String s) {
        if (s == null) return "";
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && b.length() < 400; i++) {
            char c = s.charAt(i);
            b.append(c < 0x20 ? ' ' : c);
        }
        return b.toString();
    }

    private static String key(TestIdentifier id) {
        TestSource s = id.getSource().orElse(null);
        if (s instanceof MethodSource) {
            MethodSource m = (MethodSource) s;
            return m.getClassName() + "#" + m.getMethodName();
        }
        if (s instanceof ClassSource) {
            return ((ClassSource) s).getClassName();
        }
        return id.getUniqueId();
    }

    private static byte[] readNonce() throws IOException {
        FileInputStream in = new FileInputStream(FileDescriptor.in);
        byte[] buf = new byte[64];
        int n = 0;
        while (n < buf.length) {
            int b = in.read();
            if (b < 0 || b == '\n') break;
            buf[n++] = (byte) b;
        }
        in.close();
        byte[] nonce = Arrays.copyOf(buf, n);
        Arrays.fill(buf, (byte) 0);
        return nonce;
    }

    public static void main(String[] args) throws Exception {
        // The nonce is read from descriptor 0 unbuffered (never through System.in, whose
        // buffer would keep it), and descriptor 0 is closed at once (the JDK puts /dev/null
        // there): nothing the tests run later can read it again, nor their children.
        final byte[] nonce = readNonce();
        System.setIn(new ByteArrayInputStream(new byte[0]));
        final OutputStream out = new FileOutputStream("/proc/self/fd/3");
        final Object lock = new Object();
        TestExecutionListener listener = new TestExecutionListener() {
            // One write per line, shorter than PIPE_BUF: the kernel keeps it whole, so code
            // under test that writes on the channel too (it can reopen it through
            // /proc/self/fd) never lands inside a line of this listener's, after its nonce
            // (attack finding A11-1); what it writes is a line of its own, without the nonce,
            // and judge-ci then counts no test as passed.
            private void send(String line) {
                String kept = line.length() > 1000 ? line.substring(0, 1000) : line;
                byte[] text = kept.getBytes(StandardCharsets.UTF_8);
                byte[] whole = new byte[nonce.length + 2 + text.length];
                System.arraycopy(nonce, 0, whole, 0, nonce.length);
                whole[nonce.length] = ' ';
                System.arraycopy(text, 0, whole, nonce.length + 1, text.length);
                whole[whole.length - 1] = '\n';
                synchronized (lock) {
                    try {
                        out.write(whole);
                        out.flush();
                    } catch (IOException e) {
                        // The channel is gone: what was not sent did not pass.
                    }
                }
            }

            @Override
            public void executionStarted(TestIdentifier id) {
                if (id.isTest()) send("S " + key(id));
            }

            @Override
            public void executionSkipped(TestIdentifier id, String reason) {
                send((id.isTest() ? "K " : "k ") + key(id) + " " + clean(reason));
            }

            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult r) {
                String status = r.getStatus().name();
                String why = r.getThrowable().map(t -> t.getClass().getName() + ": " + t.getMessage()).orElse("");
                if (id.isTest()) {
                    send("F " + key(id) + " " + status + " " + clean(why));
                } else if (r.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
                    send("C " + key(id) + " " + status + " " + clean(why));
                }
            }
        };
        // Configuration: the trusted tests' own junit-platform.properties (judge-ci names the
        // file), never one the subject's classes or resources put on the class path.
        LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request()
            .enableImplicitConfigurationParameters(false);
        String config = System.getProperty("judgeci.junit.config", "");
        if (!config.isEmpty() && new java.io.File(config).isFile()) {
            Properties p = new Properties();
            try (FileInputStream in = new FileInputStream(config)) {
                p.load(in);
            }
            for (String k : p.stringPropertyNames()) request.configurationParameter(k, p.getProperty(k));
        }
        request
            .configurationParameter("junit.platform.execution.listeners.deactivate", "*")
            .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "false");
        List<String> classes = new ArrayList<>();
        for (String c : args) classes.add(c);
        for (String c : classes) request.selectors(DiscoverySelectors.selectClass(c));
        LauncherDiscoveryRequest built = request.build();
        Launcher launcher = LauncherFactory.create(LauncherConfig.builder()
            .enableTestEngineAutoRegistration(false)
            .addTestEngines(new JupiterTestEngine(), new VintageTestEngine())
            .enableTestExecutionListenerAutoRegistration(false)
            .enablePostDiscoveryFilterAutoRegistration(false)
            .enableLauncherDiscoveryListenerAutoRegistration(false)
            .enableLauncherSessionListenerAutoRegistration(false)
            .build());
        launcher.execute(built, listener);
        byte[] done = new byte[nonce.length + 6];
        System.arraycopy(nonce, 0, done, 0, nonce.length);
        System.arraycopy(" DONE\n".getBytes(StandardCharsets.UTF_8), 0, done, nonce.length, 6);
        synchronized (lock) {
            out.write(done);
            out.flush();
        }
        // Nothing the tests left running (threads, shutdown hooks) changes what was sent.
        Runtime.getRuntime().halt(0);
    }
}
