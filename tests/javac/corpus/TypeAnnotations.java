package ann;

import java.lang.annotation.*;

@Target({ElementType.TYPE_USE, ElementType.TYPE_PARAMETER}) @interface NonNull {}
@Target(ElementType.TYPE_USE) @interface Size { int max() default 0; }

@SuppressWarnings(value = {"unchecked", "rawtypes"})
public abstract class TypeAnnotations<@NonNull T> extends java.util.@NonNull AbstractList<@NonNull T> implements java.io.@NonNull Serializable {
    private java.util.@NonNull List<@Size(max = 3) String> items;
    @NonNull String @NonNull [] grid;
    public abstract @NonNull T get(@NonNull int index);
    <X extends @NonNull Object> void each(java.util.Map.@NonNull Entry<X, ? extends @NonNull X> e) throws @NonNull RuntimeException {}
}
