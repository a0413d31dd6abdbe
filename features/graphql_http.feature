@graphql
Feature: GraphQL over HTTP
  The GraphQL endpoint takes a POST whose body is JSON carrying a "query", and optionally
  "variables". Any other method is refused with 405, says that only POST is allowed, and
  runs nothing. A body that is not JSON, or that has no query, is refused with 400 without
  echoing what was sent; a body that is not declared as JSON is refused with 415.
  The frontend answers GraphQL too.

  Background:
    Given Ann holds a personal access token

  @smoke
  Scenario: A query sent by POST is answered
    When Ann asks who she is
    Then the answer names Ann as the signed-in user

  @smoke
  Scenario: A mutation with variables sent by POST is carried out
    Given Ann is granted CREATE_TAGS
    When Ann creates a tag
    Then the tag exists with its name and description

  @core
  Scenario Outline: A query is answered in the media type the client accepts: <media type>
    When Ann asks who she is, accepting <media type>
    Then the answer comes as <media type>
    And the answer names Ann as the signed-in user

    Examples:
      | media type                        |
      | application/json                  |
      | application/graphql-response+json |

  @core
  Scenario Outline: The frontend answers queries on its <endpoint> endpoint
    When Ann asks who she is through the frontend's <endpoint> endpoint
    Then the answer names Ann as the signed-in user

    Examples:
      | endpoint   |
      | GraphQL    |
      | v2 GraphQL |

  @core
  Scenario Outline: A query sent by <method> is refused
    When Ann sends a query to the GraphQL endpoint by <method>
    Then the answer has status 405
    And the answer says that only POST is allowed

    Examples:
      | method |
      | GET    |
      | PUT    |
      | PATCH  |
      | DELETE |

  @core
  Scenario: A tag creation sent by GET does not happen
    Given Ann is granted CREATE_TAGS
    When Ann sends a tag creation to the GraphQL endpoint by GET
    Then the answer has status 405
    And the tag does not exist

  @core
  Scenario: A body that is not JSON is refused without being echoed
    When Ann sends a GraphQL request whose body is not valid JSON
    Then the answer has status 400
    And the answer does not repeat the body that was sent

  @core
  Scenario: A body without a query is refused without being echoed
    When Ann sends a GraphQL request whose body has no query
    Then the answer has status 400
    And the answer does not repeat the body that was sent

  @core
  Scenario: A body that is not declared as JSON is refused
    When Ann sends a GraphQL query declared as plain text
    Then the answer has status 415

  @core
  Scenario: A call refused for want of a privilege is answered as a GraphQL error
    When Ann creates a tag
    Then the answer has status 200
    And the answer is DataHub's "unauthorized" GraphQL error
    And the tag does not exist
