// Starts GraphiQL on the page's own origin: requests go to /api/graphql
// with the browser's credentials (the session cookie on the frontend), plus
// any header the headers editor adds, such as Authorization.
(function () {
  var root = document.getElementById("graphiql");
  var fetcher = GraphiQL.createFetcher({ url: root.getAttribute("data-endpoint") });
  ReactDOM.createRoot(root).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      isHeadersEditorEnabled: true,
      shouldPersistHeaders: false,
      defaultQuery: "# Ask the catalog who you are:\n{\n  me {\n    corpUser {\n      urn\n      username\n    }\n  }\n}\n",
    })
  );
})();
