package jakarta.servlet;

/** Jakarta name for the filter type. */
public interface Filter extends javax.servlet.Filter {}
