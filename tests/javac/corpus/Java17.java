package modern;

import java.util.*;
import java.util.function.Function;

public sealed interface Java17<T extends Comparable<? super T>> permits Java17.Leaf, Java17.Node, Java17.Other {
    record Leaf<T extends Comparable<? super T>>(T value, @Deprecated int... weights) implements Java17<T> {
        public Leaf {
            Objects.requireNonNull(value);
        }
        static <U extends Comparable<? super U>> Leaf<U> of(U u) { return new Leaf<>(u); }
    }
    record Node<T extends Comparable<? super T>>(Java17<T> left, Java17<T> right) implements Java17<T> {}
    non-sealed class Other<T extends Comparable<? super T>> implements Java17<T> {
        protected final Map<String, List<Map<? extends Number, ? super Integer>>> nested = new HashMap<>();
        int[] a, b[];
        int legacy()[] { return new int[0]; }
        <R> R apply(Function<? super Map<String, List<T>>, ? extends R> f, String args[]) throws java.io.IOException, RuntimeException { return null; }
    }
    enum Kind implements Runnable {
        A { public void run() {} }, @Deprecated B(2) { public void run() {} };
        private final int n;
        Kind() { this(1); }
        Kind(int n) { this.n = n; }
    }
    @interface Marker {
        String value() default "";
        Class<?>[] types() default {};
        int LIMIT = 3;
    }
    default int size() {
        Object o = this;
        if (o instanceof Leaf<?> l && l.weights().length > 0) { return switch (l.weights().length) { case 1 -> 1; default -> { yield 2; } }; }
        class Local { int x; }
        Runnable r = new Runnable() { public void run() {} };
        var v = new Local();
        return v.x;
    }
    static <K, V extends List<? extends K> & RandomAccess> Map<K, V> index(Collection<V> vs) { return Map.of(); }
}
