    @SuppressWarnings({"unchecked" })
    public String render(final Map<String, Object> values) throws IOException {
        String url = "http://example.org/*not-a-comment*/";
        char slash = '/'; char quote = '"'; char apostrophe = '\'';
        String escaped = "a \"//\" b\\";
 int after = 1;
        int fused = 1 + 2;
        String block = """
            text // kept
            /* kept */ "inner" \""" still text
            """;
        return url + slash;
    }
