package gen;

import java.util.*;
import static java.util.Map.Entry;
import static java.util.stream.Collectors.toMap;

class Generics<A extends Comparable<A>, B extends Map<A, List<? super A>>> extends AbstractMap<A, List<Map<B, Set<? extends A>>>> implements Comparator<Map.Entry<A, B>>, Cloneable {
    Map<String, Map<String, Map<String, List<int[][]>>>> deep;
    List<? extends List<? super ArrayList<Map.Entry<String, Integer>>>> wild;
    public Set<Entry<A, List<Map<B, Set<? extends A>>>>> entrySet() { return null; }
    public int compare(Map.Entry<A, B> x, Map.Entry<A, B> y) { return x.getKey().compareTo(y.getKey()) >> 1 >>> 2; }
    <T extends Comparable<T>> boolean lt(T a, T b) { return a.compareTo(b) < 0 && (a.compareTo(b)>0) == false; }
    static class Inner<X> { class Deeper<Y extends X> { Inner<X>.Deeper<Y> self; } }
}
