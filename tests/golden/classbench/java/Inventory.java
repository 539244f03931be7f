/*
 * A small inventory written for benchsmith's metadata tests.
 */
package org.example.stock;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Keeps counted items, by name. */
@SuppressWarnings("unchecked")
public class Inventory<T extends Comparable<T>> extends AbstractStore<T> implements Countable, Iterable<Map.Entry<String, T>> {
    /** The most items one inventory holds. */
    public static final int CAPACITY = 1_000;

    private final List<T> items = new ArrayList<>();

    @Deprecated
    protected String label = "stock", owner;

    private static final int[] SIZES = {
        1, 2, 4,
    };

    static {
        System.setProperty("stock", "on");
    }

    /**
     * An empty inventory.
     *
     * @param label what it is called
     */
    public Inventory(String label) {
        this.label = label;
    }

    public Inventory() {
        this("stock");
    }

    /** Adds one item; full inventories refuse it. */
    @Override
    public boolean add(T item) throws IllegalStateException {
        if (items.size() >= CAPACITY) {
            throw new IllegalStateException("full: " + label);
        }
        return items.add(item);
    }

    public boolean add(T item, int copies) {
        boolean changed = false;
        for (int i = 0; i < copies; i++) {
            changed |= add(item);
        }
        return changed;
    }

    @Override
    @SuppressWarnings({"rawtypes", "unused"})
    public <K extends T> List<K> matching(Map<String, ? super K> filter,
                                          int... limits) {
        return (List<K>) new ArrayList<>(items);
    }

    /** The items counted so far. */
    public int count() { return items.size(); }

    /** A name and its count. */
    public static class Line {
        private final String name;

        Line(String name) {
            this.name = name;
        }

        String name() {
            return name;
        }
    }
}

class AbstractStore<T> {
}
