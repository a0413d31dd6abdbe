@ui @cap:ui @cap:graphql @cap:native-users
Feature: The GraphiQL explorer
  GraphiQL, at /api/graphiql on the frontend, lets a signed-in person try GraphQL queries in
  a browser. Its requests go to the service's own /api/graphql with the browser's session,
  or with an Authorization header given in its headers editor. It works without the
  internet: every script, stylesheet and font comes from the service itself.

  @id:giql-01 @must @core
  Scenario: Signed in, GraphiQL answers a query as the person signed in
    Given Ann is signed in to the frontend in a browser
    When Ann runs the query "{ me { corpUser { urn } } }" in GraphiQL
    Then GraphiQL's result shows Ann's URN

  @id:giql-02 @must @core
  Scenario: GraphiQL sends the Authorization header given in its headers editor
    Given Ann is signed in to the frontend in a browser
    And Bob holds a personal access token
    When Ann runs the query "{ me { corpUser { urn } } }" in GraphiQL with Bob's token in its headers editor
    Then GraphiQL's result shows Bob's URN

  @id:giql-03 @should @core
  Scenario: GraphiQL loads and runs without leaving the service's own origin
    Given Ann is signed in to the frontend in a browser
    When Ann runs the query "{ me { corpUser { urn } } }" in GraphiQL
    Then every request the page made went to the service's own origin
